package connectortools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// DefaultStateBudget bounds a run start's state hooks, all of them together (spec connectors.md,
// Limits: state hooks, all together, 5 seconds).
const DefaultStateBudget = 5 * time.Second

// StateEntry is one connector's state at a run start: its value (redacted against the login's
// credentials, or {"unavailable": <reason>}) under the manifest's state.key, with state.intro.
type StateEntry struct {
	Key      string
	Intro    string
	ServerID string
	Value    json.RawMessage
}

// Guidance is one connector's prompt.guidance, offered because one of its tools is.
type Guidance struct {
	ServerID    string
	DisplayName string
	ToolPrefix  string
	Text        string
}

// RunContext is what a run start tells the agent beside its tools: the state its connectors' hooks
// filled, by key, and the guidance of the connectors whose tools it is offered, by server id.
type RunContext struct {
	State    []StateEntry
	Guidance []Guidance
}

// stateJob is one state hook to run.
type stateJob struct {
	srv   connectorsrm.Server
	m     *connector.Manifest
	login connectorsrm.Login
	hook  connector.Stater
}

// RunContext runs the state hooks of a run start (spec connectors.md, State hooks) and gathers the
// connectors' guidance. The connectors it reads are those the caller's agent has On: a connector of
// the catalog that is switched on, with a connected login in the agent's chain (the most specific
// scope's, as for the tools) and at least one of its tools On. Each such connector whose adapter has
// a state hook (connector.Stater, with the manifest's state.key) runs it; the hooks run in parallel
// under one budget (Options.StateBudget, default 5 s). A value that is not JSON or is over
// connector.MaxStateBytes serialised, a failure and a timeout put {"unavailable": <reason>} under the
// key and log; a value is redacted against its login's credentials before anything reads it; a key
// the core reserves (connector.ReservedStateKeys) is dropped and logged, as is a key a connector of a
// lower server id already filled.
func (s *Service) RunContext(ctx context.Context, caller executions.Caller) (RunContext, error) {
	offered, err := s.OfferedTools(ctx, caller)
	if err != nil {
		return RunContext{}, err
	}
	logins := map[string]connectorsrm.Login{}
	var ids []string
	for _, t := range offered {
		if _, ok := logins[t.ServerID]; !ok {
			logins[t.ServerID] = t.Login
			ids = append(ids, t.ServerID)
		}
	}
	sort.Strings(ids)
	var rc RunContext
	var jobs []stateJob
	keys := map[string]string{}
	for _, id := range ids {
		srv, err := s.cachedServer(ctx, id)
		if err != nil {
			return RunContext{}, err
		}
		m, err := s.ManifestOf(srv)
		if err != nil {
			return RunContext{}, err
		}
		if !srv.Enabled {
			continue
		}
		if m.Prompt != nil && strings.TrimSpace(m.Prompt.Guidance) != "" {
			rc.Guidance = append(rc.Guidance, Guidance{ServerID: id, DisplayName: m.DisplayName, ToolPrefix: srv.ToolPrefix, Text: strings.TrimSpace(m.Prompt.Guidance)})
		}
		c := s.BySlug[m.Slug]
		if m.State == nil || c == nil {
			continue
		}
		hook, ok := c.Adapter.(connector.Stater)
		if !ok {
			continue
		}
		key := m.State.Key
		switch {
		case connector.IsReservedStateKey(key):
			s.Log.WarnContext(ctx, "state hook skipped: its key is the core's", "server", id, "key", key)
			continue
		case keys[key] != "":
			s.Log.WarnContext(ctx, "state hook skipped: another connector fills its key", "server", id, "key", key, "filled_by", keys[key])
			continue
		}
		keys[key] = id
		jobs = append(jobs, stateJob{srv: srv, m: m, login: logins[id], hook: hook})
	}
	rc.State = s.runStateHooks(ctx, jobs)
	return rc, nil
}

// runStateHooks runs every job at once under the state budget and returns one entry per job, by key.
func (s *Service) runStateHooks(ctx context.Context, jobs []stateJob) []StateEntry {
	if len(jobs) == 0 {
		return nil
	}
	budget := s.Opts.StateBudget
	if budget <= 0 {
		budget = DefaultStateBudget
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	type result struct {
		i     int
		value json.RawMessage
	}
	results := make(chan result, len(jobs)) // buffered: a hook that ends late never blocks
	for i, j := range jobs {
		go func() { results <- result{i, s.runStateHook(ctx, j, budget)} }()
	}
	out := make([]StateEntry, len(jobs))
	got := make([]bool, len(jobs))
	for n := 0; n < len(jobs); n++ {
		select {
		case r := <-results:
			out[r.i].Value, got[r.i] = r.value, true
		case <-ctx.Done():
			n = len(jobs)
		}
	}
	for drained := false; !drained; { // what ended with the budget still counts
		select {
		case r := <-results:
			out[r.i].Value, got[r.i] = r.value, true
		default:
			drained = true
		}
	}
	for i, j := range jobs {
		out[i].Key, out[i].Intro, out[i].ServerID = j.m.State.Key, j.m.State.Intro, j.srv.ID
		if !got[i] {
			out[i].Value = s.unavailable(ctx, j, fmt.Sprintf("the state hook did not answer within %s", budget))
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Key < out[b].Key })
	return out
}

// runStateHook runs one hook: the login's credentials opened (and an OAuth login's tokens refreshed)
// first, the value checked, measured and redacted.
func (s *Service) runStateHook(ctx context.Context, j stateJob, budget time.Duration) json.RawMessage {
	l := j.login
	creds, err := s.cachedCreds(ctx, l.LoginID, l.Version, l.Credential)
	if err == nil {
		creds, err = s.logins.Fresh(ctx, l.State, j.m, creds, false)
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return s.unavailable(ctx, j, fmt.Sprintf("the state hook did not answer within %s", budget))
	case err != nil:
		return s.unavailable(ctx, j, "the login's credentials could not be read")
	}
	red := newRedactor(creds)
	v, err := j.hook.State(ctx, creds, s.AdapterContext(l.LoginID, j.m, creds, l.Settings))
	switch {
	case err != nil && ctx.Err() != nil:
		return s.unavailable(ctx, j, fmt.Sprintf("the state hook did not answer within %s", budget))
	case err != nil:
		msg := red.Text(err.Error())
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return s.unavailable(ctx, j, "the state hook failed: "+msg)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, v); err != nil {
		return s.unavailable(ctx, j, "the state hook's value is not JSON")
	}
	if compact.Len() > connector.MaxStateBytes {
		return s.unavailable(ctx, j, fmt.Sprintf("the value is %d bytes serialised; at most %d", compact.Len(), connector.MaxStateBytes))
	}
	return red.JSON(compact.Bytes())
}

// unavailable is the value of a key whose hook gave none, logged.
func (s *Service) unavailable(ctx context.Context, j stateJob, reason string) json.RawMessage {
	s.Log.WarnContext(context.WithoutCancel(ctx), "state hook unavailable", "server", j.srv.ID, "key", j.m.State.Key, "login", j.login.LoginID, "reason", reason)
	b, err := json.Marshal(map[string]string{"unavailable": reason})
	if err != nil {
		return json.RawMessage(`{"unavailable":"the reason could not be written"}`)
	}
	return b
}

// Instructions renders the run context as the text an MCP session's instructions add: each state
// key present with its intro and value, then each offered connector's guidance. Empty when there is
// neither.
func (rc RunContext) Instructions() string {
	var b strings.Builder
	if len(rc.State) > 0 {
		b.WriteString("State at the start of this session, from the connectors you use (JSON values; {\"unavailable\": reason} when a connector could not say):\n")
		for _, e := range rc.State {
			fmt.Fprintf(&b, "\n%s\n%s = %s\n", strings.TrimSpace(e.Intro), e.Key, e.Value)
		}
	}
	if len(rc.Guidance) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("Guidance for the connectors whose tools you are offered:\n")
		for _, g := range rc.Guidance {
			fmt.Fprintf(&b, "\n%s (tools %s_*): %s\n", g.DisplayName, g.ToolPrefix, g.Text)
		}
	}
	return b.String()
}

// RunInstructions is RunContext rendered (Instructions); a failure to read logs and adds nothing,
// so a session still starts.
func (s *Service) RunInstructions(ctx context.Context, caller executions.Caller) string {
	rc, err := s.RunContext(ctx, caller)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.Log.WarnContext(ctx, "run start: the connectors' state and guidance could not be read", "err", err)
		}
		return ""
	}
	return rc.Instructions()
}
