package audithttp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// ActivityRecords is what the Activity routes read of the audit read model (projections/auditrm.Reader).
type ActivityRecords interface {
	ActivityList(ctx context.Context, q auditrm.ActivityQuery, before eventstore.Position, limit int) ([]auditrm.Record, eventstore.Position, error)
	Activity(ctx context.Context, q auditrm.ActivityQuery, now time.Time) (auditrm.Summary, error)
	ActivityRecord(ctx context.Context, user, eventID uuid.UUID) (auditrm.Record, error)
	ApprovalTrail(ctx context.Context, user, approvalID uuid.UUID) ([]auditrm.Record, error)
}

var _ ActivityRecords = auditrm.Reader{}

// Agents names agents (projections/organizationsrm.Reader).
type Agents interface {
	AgentsOf(ctx context.Context, user uuid.UUID) ([]organizationsrm.Agent, error)
	Agent(ctx context.Context, id uuid.UUID) (organizationsrm.Agent, error)
}

// Keys lists a user's live API keys (projections/identityrm.Reader).
type Keys interface {
	LiveKeys(ctx context.Context, user uuid.UUID) ([]identityrm.APIKey, error)
}

// Clients names OAuth clients (projections/oauthrm.Reader).
type Clients interface {
	ClientsOfUser(ctx context.Context, user uuid.UUID, now time.Time) ([]oauthrm.UserClient, error)
	Client(ctx context.Context, id string) (oauthdom.Client, error)
}

var (
	_ Agents  = (*organizationsrm.Reader)(nil)
	_ Keys    = identityrm.Reader{}
	_ Clients = oauthrm.Reader{}
)

// ActivityDeps is what MountActivity needs.
type ActivityDeps struct {
	Sessions websession.Portal
	Records  ActivityRecords
	Agents   Agents
	Keys     Keys
	Clients  Clients
	Now      func() time.Time
	Logger   *slog.Logger
}

// Paging and range limits of the Activity routes.
const (
	ActivityDefaultLimit = 25
	ActivityMaxLimit     = 200
	// ActivityDefaultDays is the chart's range when the request names none.
	ActivityDefaultDays = 14
	// directoryClientScan bounds how many of the user's recent tool runs are read for the OAuth
	// clients they name (to name clients whose grants are gone).
	directoryClientScan = 500
)

// MountActivity mounts the Activity page's API (issue 30, item 2), for the signed-in user's own
// records only (the read model's user column, as GET /api/audit):
//
//	GET /api/activity?[agent=&integration=&account=&outcome=&from=&to=&before=&limit=]
//	    the user's records, newest first, filtered; agent and outcome keep tool runs only
//	GET /api/activity/summary?[group_by=integration|agent&…the same filters]
//	    calls per day over the range (default the last 14 days, at most 92) and per hour over its
//	    last 24 hours, per integration or per agent, with errors, refusals and p50/p95 latency
//	GET /api/activity/names
//	    the names of the user's agents, live API keys and OAuth clients (one name for each, everywhere)
//	GET /api/activity/{event_id}
//	    one record in full, with its approval's trail when the call asked for one
//
// A bad parameter is 400 with a message that names it; a storage failure is 503.
func MountActivity(r chi.Router, d ActivityDeps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	a := &activity{d}
	wrap := func(f func(http.ResponseWriter, *http.Request, uuid.UUID)) http.HandlerFunc {
		return websession.RequireUser(d.Sessions, d.Logger, 1<<10, f)
	}
	r.Get("/api/activity", wrap(a.list))
	r.Get("/api/activity/summary", wrap(a.summary))
	r.Get("/api/activity/names", wrap(a.names))
	r.Get("/api/activity/{event_id}", wrap(a.detail))
}

type activity struct{ ActivityDeps }

// activityParams are the parameters each route accepts; any other is refused, so that a misspelt
// filter is not silently ignored.
var activityParams = map[string]bool{"agent": true, "integration": true, "account": true, "outcome": true,
	"from": true, "to": true, "before": true, "limit": true, "group_by": true}

// query reads the filters every route shares.
func (a *activity) query(r *http.Request, user uuid.UUID) (auditrm.ActivityQuery, url.Values, error) {
	v := r.URL.Query()
	for k, vals := range v {
		if !activityParams[k] {
			return auditrm.ActivityQuery{}, v, invalid("unknown parameter %q: use agent, integration, account, outcome, from, to, group_by, before or limit", k)
		}
		if len(vals) > 1 {
			return auditrm.ActivityQuery{}, v, invalid("%s is given %d times; give it once", k, len(vals))
		}
	}
	q := auditrm.ActivityQuery{User: user, DefaultAgent: identitydom.DefaultAgentID(user),
		Integration: v.Get("integration"), Account: v.Get("account"), Outcome: v.Get("outcome"), GroupBy: v.Get("group_by")}
	if s := strings.TrimSpace(v.Get("agent")); s != "" {
		id, err := uuid.Parse(s)
		if err != nil || id == uuid.Nil {
			return q, v, invalid("agent must be an agent's id (a UUID), not %q", s)
		}
		q.Agent = id
	}
	if q.Account != "" {
		if err := connection.CheckAccountLabel(q.Account); err != nil {
			return q, v, invalid("account: %s", domain.ErrorMessage(err))
		}
	}
	var err error
	if s := v.Get("from"); s != "" {
		if q.From, err = auditrm.ParseFrom(s); err != nil {
			return q, v, invalid("from: %q is neither an RFC 3339 time (2025-01-31T13:45:00Z) nor a date (2025-01-31)", s)
		}
	}
	if s := v.Get("to"); s != "" {
		if q.To, err = auditrm.ParseTo(s); err != nil {
			return q, v, invalid("to: %q is neither an RFC 3339 time (2025-01-31T13:45:00Z) nor a date (2025-01-31)", s)
		}
	}
	return q, v, q.Validate()
}

// ActivityPage is the body of GET /api/activity.
type ActivityPage struct {
	Records []activityRecord `json:"records"`
	// NextBefore, when set, fetches the next (older) page as `before`.
	NextBefore string `json:"next_before,omitempty"`
}

// activityRecord is a record with its outcome class (ok, error, refused; "" for a record that is
// not a tool run).
type activityRecord struct {
	auditrm.Record
	Outcome string `json:"outcome,omitempty"`
}

func withOutcome(r auditrm.Record) activityRecord {
	return activityRecord{Record: r, Outcome: auditrm.Outcome(r)}
}

func (a *activity) list(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q, v, err := a.query(r, user)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if v.Has("group_by") {
		handlers.WriteError(w, r, a.Logger, invalid("group_by belongs to /api/activity/summary"))
		return
	}
	limit := ActivityDefaultLimit
	if v.Has("limit") {
		n, err := strconv.Atoi(v.Get("limit"))
		if err != nil || n < 1 || n > ActivityMaxLimit {
			handlers.WriteError(w, r, a.Logger, invalid("limit must be a whole number from 1 to %d, not %q", ActivityMaxLimit, v.Get("limit")))
			return
		}
		limit = n
	}
	before := eventstore.Start
	if v.Has("before") {
		p, err := eventstore.ParsePosition(v.Get("before"))
		if err != nil || p.IsZero() {
			handlers.WriteError(w, r, a.Logger, invalid("before must be a position as next_before gives it (COMMIT/PREPARE), not %q", v.Get("before")))
			return
		}
		before = p
	}
	recs, next, err := a.Records.ActivityList(r.Context(), q, before, limit)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	page := ActivityPage{Records: make([]activityRecord, 0, len(recs))}
	for _, rec := range recs {
		page.Records = append(page.Records, withOutcome(rec))
	}
	if !next.IsZero() {
		page.NextBefore = next.String()
	}
	handlers.WriteJSON(w, http.StatusOK, page)
}

func (a *activity) summary(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	q, v, err := a.query(r, user)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	if v.Has("before") || v.Has("limit") {
		handlers.WriteError(w, r, a.Logger, invalid("before and limit page the list at /api/activity; the summary has neither"))
		return
	}
	now := a.Now().UTC()
	if q.To.IsZero() {
		q.To = now.Truncate(time.Hour).Add(time.Hour)
	}
	if q.From.IsZero() {
		// The range's last day is the one holding its last instant (To is exclusive: at 23:30 the
		// default To is the next midnight, and the last day is still today).
		q.From = q.To.Add(-time.Nanosecond).Truncate(24*time.Hour).AddDate(0, 0, -(ActivityDefaultDays - 1))
	}
	s, err := a.Records.Activity(r.Context(), q, now)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, s)
}

// ActivityDetail is the body of GET /api/activity/{event_id}.
type ActivityDetail struct {
	Record activityRecord `json:"record"`
	// Approval is the approval's trail (requested, approved or denied, expired, used), oldest first,
	// when the call ran under one or was held back for one; State is its latest step.
	Approval *ApprovalTrail `json:"approval,omitempty"`
}

// ApprovalTrail is one approval's steps.
type ApprovalTrail struct {
	ID    uuid.UUID        `json:"id"`
	State string           `json:"state"`
	Steps []auditrm.Record `json:"steps"`
}

func (a *activity) detail(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	if len(r.URL.Query()) > 0 {
		handlers.WriteError(w, r, a.Logger, invalid("a record takes no parameters"))
		return
	}
	s := chi.URLParam(r, "event_id")
	id, err := uuid.Parse(s)
	if err != nil || id == uuid.Nil || len(s) != 36 {
		handlers.WriteError(w, r, a.Logger, invalid("%q is not a record's event id (a UUID)", s))
		return
	}
	rec, err := a.Records.ActivityRecord(r.Context(), user, id)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	out := ActivityDetail{Record: withOutcome(rec)}
	if rec.ApprovalID != uuid.Nil {
		steps, err := a.Records.ApprovalTrail(r.Context(), user, rec.ApprovalID)
		if err != nil {
			handlers.WriteError(w, r, a.Logger, err)
			return
		}
		t := &ApprovalTrail{ID: rec.ApprovalID, Steps: steps, State: "unknown"}
		if steps == nil {
			t.Steps = []auditrm.Record{}
		}
		if n := len(steps); n > 0 {
			t.State = strings.TrimPrefix(string(steps[n-1].Kind), "approval_")
		}
		out.Approval = t
	}
	handlers.WriteJSON(w, http.StatusOK, out)
}

// Directory is the body of GET /api/activity/names: one name for each agent, API key and OAuth client
// the user's records may name. The portal labels them all with one helper (portal naming.js).
type Directory struct {
	Agents  []DirectoryAgent  `json:"agents"`
	Keys    []DirectoryKey    `json:"keys"`
	Clients []DirectoryClient `json:"clients"`
}

// DirectoryAgent is an agent: its name, and whether it is its owner's default agent.
type DirectoryAgent struct {
	ID      uuid.UUID `json:"id"`
	Name    string    `json:"name"`
	Default bool      `json:"default,omitempty"`
}

// DirectoryKey is a live API key: its display prefix (as the key page shows it) and its agent. A key
// id not listed is a retired (rotated or revoked) key.
type DirectoryKey struct {
	ID      uuid.UUID `json:"id"`
	AgentID uuid.UUID `json:"agent_id"`
	Prefix  string    `json:"prefix"`
}

// DirectoryClient is an OAuth client by its registered client_name.
type DirectoryClient struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func (a *activity) names(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	if len(r.URL.Query()) > 0 {
		handlers.WriteError(w, r, a.Logger, invalid("names takes no parameters"))
		return
	}
	ctx := r.Context()
	dir := Directory{Agents: []DirectoryAgent{}, Keys: []DirectoryKey{}, Clients: []DirectoryClient{}}
	agents, err := a.Agents.AgentsOf(ctx, user)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, unavailable(err))
		return
	}
	for _, ag := range agents {
		dir.Agents = append(dir.Agents, DirectoryAgent{ID: ag.ID, Name: ag.Name, Default: ag.Default})
	}
	keys, err := a.Keys.LiveKeys(ctx, user)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, unavailable(err))
		return
	}
	for _, k := range keys {
		dir.Keys = append(dir.Keys, DirectoryKey{ID: k.ID, AgentID: k.AgentID, Prefix: k.Prefix})
	}
	seen := map[string]bool{}
	live, err := a.Clients.ClientsOfUser(ctx, user, a.Now())
	if err != nil {
		handlers.WriteError(w, r, a.Logger, unavailable(err))
		return
	}
	for _, c := range live {
		seen[c.ClientID] = true
		dir.Clients = append(dir.Clients, DirectoryClient{ID: c.ClientID, Name: c.ClientName})
	}
	// The clients of the user's recent records whose grants are gone keep their registered names.
	recent, _, err := a.Records.ActivityList(ctx, auditrm.ActivityQuery{User: user, DefaultAgent: identitydom.DefaultAgentID(user)}, eventstore.Start, directoryClientScan)
	if err != nil {
		handlers.WriteError(w, r, a.Logger, err)
		return
	}
	for _, rec := range recent {
		if rec.Via != "oauth" || rec.ClientID == "" || seen[rec.ClientID] {
			continue
		}
		seen[rec.ClientID] = true
		c, err := a.Clients.Client(ctx, rec.ClientID)
		if errors.Is(err, oauthrm.ErrNotFound) {
			continue
		}
		if err != nil {
			handlers.WriteError(w, r, a.Logger, unavailable(err))
			return
		}
		dir.Clients = append(dir.Clients, DirectoryClient{ID: c.ClientID, Name: c.ClientName})
	}
	handlers.WriteJSON(w, http.StatusOK, dir)
}

// unavailable wraps a read model's failure as a 503 (never a 401 or a 500 that hides the cause).
func unavailable(err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: "the read models cannot be read now; try again in a moment", Err: err}
}
