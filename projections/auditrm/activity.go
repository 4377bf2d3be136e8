package auditrm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
)

// The bounds of an activity read (ActivityQuery): a range of at most MaxActivityRange, and at most
// MaxActivityRows tool runs summarised (the newest; Summary.Truncated says when more matched).
const (
	MaxActivityRange = 92 * 24 * time.Hour
	MaxActivityRows  = 20000
	// MaxActivityScan is how many rows one ActivityList call reads at most.
	MaxActivityScan = 5000
)

// The outcome classes of a tool run (ActivityQuery.Outcome, Outcome).
const (
	OutcomeOK    = "ok"    // the tool ran and succeeded
	OutcomeError = "error" // the tool ran, or was tried, and failed
	// OutcomeRefused: the call did not run: switched Off, held for or refused an approval, over a
	// budget, or a person was driving the browser session (HUMAN_IN_CONTROL).
	OutcomeRefused = "refused"
)

// refusedCodes are the error codes (and error details) of calls that did not run.
var refusedCodes = []string{"TOOL_OFF", "APPROVAL_REQUIRED", "APPROVAL_DENIED", "APPROVAL_EXPIRED", "APPROVAL_INVALID", "RATE_LIMITED", "HUMAN_IN_CONTROL"}

// Outcome is the class of a tool_executed record: OutcomeOK, OutcomeError or OutcomeRefused ("" for
// another kind).
func Outcome(r Record) string {
	if r.Kind != KindToolExecuted {
		return ""
	}
	if r.Success != nil && *r.Success {
		return OutcomeOK
	}
	if slices.Contains(refusedCodes, r.ErrorCode) || slices.Contains(refusedCodes, r.ErrorDetail) {
		return OutcomeRefused
	}
	return OutcomeError
}

// ActivityQuery selects one user's records for the Activity page: its list (ActivityList) and its
// chart (Activity, tool runs only).
type ActivityQuery struct {
	// User is whose records are read; it is required, and nothing of another user is ever read.
	User uuid.UUID
	// DefaultAgent is the id of User's default agent: a record that names no agent is its.
	DefaultAgent uuid.UUID
	// Agent keeps the tool runs of one agent (uuid.Nil: every agent).
	Agent uuid.UUID
	// Integration keeps the records about it; Account those of one account label ("default"
	// matches records that name none).
	Integration, Account string
	// Outcome keeps the tool runs of one class (OutcomeOK, OutcomeError, OutcomeRefused) or of one
	// error code.
	Outcome string
	// From (inclusive) and To (exclusive) bound Record.Time. Activity needs both, at most
	// MaxActivityRange apart; ActivityList takes either or none.
	From, To time.Time
	// GroupBy is "integration" (the default) or "agent": what the chart's series are.
	GroupBy string
}

// Validate checks q and normalises it; its errors are CodeInvalid.
func (q *ActivityQuery) Validate() error {
	if q.User == uuid.Nil {
		return domain.Errorf(domain.CodeInvalid, "activity: no user")
	}
	q.Integration, q.Account, q.Outcome = strings.TrimSpace(q.Integration), strings.TrimSpace(q.Account), strings.TrimSpace(q.Outcome)
	for _, s := range []string{q.Integration, q.Account, q.Outcome} {
		if len(s) > 200 {
			return domain.Errorf(domain.CodeInvalid, "a filter value is at most 200 characters long")
		}
	}
	if q.Outcome != "" && q.Outcome != OutcomeOK && q.Outcome != OutcomeError && q.Outcome != OutcomeRefused && !isCode(q.Outcome) {
		return domain.Errorf(domain.CodeInvalid, "outcome must be ok, error, refused or an error code such as TOOL_ERROR, not %q", q.Outcome)
	}
	switch q.GroupBy {
	case "":
		q.GroupBy = "integration"
	case "integration", "agent":
	default:
		return domain.Errorf(domain.CodeInvalid, "group_by must be integration or agent, not %q", q.GroupBy)
	}
	if !q.From.IsZero() && !q.To.IsZero() && !q.From.Before(q.To) {
		return domain.Errorf(domain.CodeInvalid, "the time range is empty: from must be before to")
	}
	return nil
}

// isCode reports whether s looks like an error code: upper-case letters, digits and underscores.
func isCode(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// agentOf is the agent a record names, its user's default agent when it names none.
func (q ActivityQuery) agentOf(r Record) uuid.UUID {
	if r.AgentID == uuid.Nil {
		return q.DefaultAgent
	}
	return r.AgentID
}

// matches applies q's filters to one of the user's records. The agent and outcome filters keep tool
// runs only.
func (q ActivityQuery) matches(r Record) bool {
	if r.UserID != q.User {
		return false
	}
	if q.Integration != "" && r.Integration != q.Integration && !slices.Contains(r.Integrations, q.Integration) {
		return false
	}
	if q.Account != "" && connection.NormalAccount(r.Account) != q.Account {
		return false
	}
	if !q.From.IsZero() && r.Time.Before(q.From) {
		return false
	}
	if !q.To.IsZero() && !r.Time.Before(q.To) {
		return false
	}
	if q.Agent != uuid.Nil && (r.Kind != KindToolExecuted || q.agentOf(r) != q.Agent) {
		return false
	}
	if q.Outcome != "" {
		switch q.Outcome {
		case OutcomeOK, OutcomeError, OutcomeRefused:
			return Outcome(r) == q.Outcome
		default:
			return r.Kind == KindToolExecuted && (r.ErrorCode == q.Outcome || r.ErrorDetail == q.Outcome)
		}
	}
	return true
}

// where returns the SQL conditions (and their arguments) every activity read starts from: the user's
// records, of one integration and a time range when q names them.
func (q ActivityQuery) where(toolRuns bool) ([]string, []any) {
	var where []string
	var args []any
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	where = append(where, "user_id = "+arg(q.User.String()))
	if toolRuns || q.Agent != uuid.Nil || q.Outcome != "" {
		where = append(where, "kind = "+arg(string(KindToolExecuted)))
	}
	if q.Integration != "" && (toolRuns || q.Agent != uuid.Nil || q.Outcome != "") {
		// A tool run names one integration (a curl session's record may name several, so other
		// kinds are matched in Go).
		where = append(where, "integration = "+arg(q.Integration))
	}
	if !q.From.IsZero() {
		where = append(where, "at >= "+arg(dbtime.Format(q.From)))
	}
	if !q.To.IsZero() {
		where = append(where, "at < "+arg(dbtime.Format(q.To)))
	}
	return where, args
}

// ActivityList returns up to limit of the user's records that pass q, newest (latest in the log)
// first, strictly before `before` in log order (from the newest when it is the zero position). next
// is where the following (older) page starts, the zero position when there is none: the last record
// given when limit were given, or the last row read when one call has read its cap of rows (so a
// filter that matches little cannot make one request read a user's whole history).
func (r Reader) ActivityList(ctx context.Context, q ActivityQuery, before eventstore.Position, limit int) (recs []Record, next eventstore.Position, err error) {
	if err := q.Validate(); err != nil {
		return nil, eventstore.Position{}, err
	}
	if limit < 1 {
		return nil, eventstore.Position{}, domain.Errorf(domain.CodeInvalid, "limit must be at least 1")
	}
	where, args := q.where(false)
	scanned := 0
	for {
		w := append([]string(nil), where...)
		a := append([]any(nil), args...)
		if !before.IsZero() {
			a = append(a, encodePos(before.Commit), encodePos(before.Prepare))
			n := len(a)
			w = append(w, fmt.Sprintf("(commit_pos < $%d OR (commit_pos = $%d AND prepare_pos < $%d))", n-1, n-1, n))
		}
		a = append(a, listChunk)
		stmt := "SELECT record FROM audit_records WHERE " + strings.Join(w, " AND ") +
			fmt.Sprintf(" ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $%d", len(a))
		chunk, err := r.scan(ctx, stmt, a...)
		if err != nil {
			return nil, eventstore.Position{}, err
		}
		for _, rec := range chunk {
			before = rec.Position
			scanned++
			if q.matches(rec) {
				recs = append(recs, rec)
				if len(recs) == limit {
					return recs, rec.Position, nil
				}
			}
		}
		if len(chunk) < listChunk {
			return recs, eventstore.Position{}, nil
		}
		if scanned >= MaxActivityScan {
			return recs, before, nil
		}
	}
}

// ActivityRecord returns one of the user's records by its event id; CodeNotFound when the user has
// none with that id (another user's record is not found either).
func (r Reader) ActivityRecord(ctx context.Context, user, eventID uuid.UUID) (Record, error) {
	recs, err := r.scan(ctx, `SELECT record FROM audit_records WHERE event_id = $1 AND user_id = $2`, eventID.String(), user.String())
	if err != nil {
		return Record{}, err
	}
	if len(recs) == 0 {
		return Record{}, domain.Errorf(domain.CodeNotFound, "you have no activity record %s", eventID)
	}
	return recs[0], nil
}

// ApprovalTrail returns the user's approval_* records of one approval, in log order.
func (r Reader) ApprovalTrail(ctx context.Context, user, approvalID uuid.UUID) ([]Record, error) {
	recs, err := r.scan(ctx, `SELECT record FROM audit_records WHERE user_id = $1 AND kind IN ($2, $3, $4, $5, $6)
		ORDER BY commit_pos DESC, prepare_pos DESC LIMIT 2000`, user.String(),
		string(KindApprovalRequested), string(KindApprovalApproved), string(KindApprovalDenied), string(KindApprovalExpired), string(KindApprovalUsed))
	if err != nil {
		return nil, err
	}
	var out []Record
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].ApprovalID == approvalID {
			out = append(out, recs[i])
		}
	}
	return out, nil
}

// Activity summarises the user's tool runs that pass q (From and To required) for the chart. It
// reads at most MaxActivityRows of them, the newest.
func (r Reader) Activity(ctx context.Context, q ActivityQuery, now time.Time) (Summary, error) {
	if err := q.Validate(); err != nil {
		return Summary{}, err
	}
	if q.From.IsZero() || q.To.IsZero() {
		return Summary{}, domain.Errorf(domain.CodeInvalid, "activity: a time range (from and to) is required")
	}
	if q.To.Sub(q.From) > MaxActivityRange {
		return Summary{}, domain.Errorf(domain.CodeInvalid, "the time range is at most %d days", int(MaxActivityRange.Hours()/24))
	}
	where, args := q.where(true)
	args = append(args, MaxActivityRows+1)
	stmt := "SELECT record FROM audit_records WHERE " + strings.Join(where, " AND ") +
		fmt.Sprintf(" ORDER BY at DESC LIMIT $%d", len(args))
	recs, err := r.scan(ctx, stmt, args...)
	if err != nil {
		return Summary{}, err
	}
	truncated := len(recs) > MaxActivityRows
	if truncated {
		recs = recs[:MaxActivityRows]
	}
	kept := recs[:0]
	for _, rec := range recs {
		if q.matches(rec) {
			kept = append(kept, rec)
		}
	}
	s := Summarize(q, kept, now)
	s.Truncated = truncated
	return s, nil
}

// Stats are the counts and latencies of a set of tool runs. P50MS and P95MS are the nearest-rank
// percentiles (Percentile) of the durations of the runs that ran (ok or error; a refused call never
// ran, and its 0 ms would pull them down); nil when none ran.
type Stats struct {
	Calls   int    `json:"calls"`
	Errors  int    `json:"errors"`
	Refused int    `json:"refused"`
	P50MS   *int64 `json:"p50_ms"`
	P95MS   *int64 `json:"p95_ms"`
}

// Bucket is one day (or hour) of the chart: its start, its totals, and the calls of each group.
type Bucket struct {
	Start time.Time `json:"start"`
	Stats
	// Groups counts the bucket's calls per group key (an integration name or an agent id).
	Groups map[string]int `json:"groups"`
}

// Group is one series of the chart: an integration or an agent, with its totals over the range.
type Group struct {
	Key string `json:"key"`
	Stats
}

// Summary is what the Activity chart draws.
type Summary struct {
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
	GroupBy string    `json:"group_by"`
	Totals  Stats     `json:"totals"`
	// Days are the UTC days from From's day to the day before To (To's day too when To is not
	// midnight); Hours the 24 hours ending at the hour of min(To, now).
	Days   []Bucket `json:"days"`
	Hours  []Bucket `json:"hours"`
	Groups []Group  `json:"groups"`
	// Truncated: more than MaxActivityRows runs matched; the newest were summarised.
	Truncated bool `json:"truncated,omitempty"`
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted (ascending) by the nearest-rank
// method: the smallest value with at least p% of the values at or below it, sorted[ceil(p/100·n)−1].
// It returns nil for no values.
func Percentile(sorted []int64, p float64) *int64 {
	if len(sorted) == 0 {
		return nil
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	v := sorted[rank-1]
	return &v
}

// stats accumulates Stats.
type stats struct {
	Stats
	durations []int64
}

func (s *stats) add(r Record) {
	s.Calls++
	switch Outcome(r) {
	case OutcomeError:
		s.Errors++
	case OutcomeRefused:
		s.Refused++
		return
	}
	if r.DurationMS != nil {
		s.durations = append(s.durations, *r.DurationMS)
	}
}

func (s *stats) done() Stats {
	slices.Sort(s.durations)
	s.P50MS, s.P95MS = Percentile(s.durations, 50), Percentile(s.durations, 95)
	return s.Stats
}

// Summarize buckets tool runs (already filtered by q) per UTC day over [q.From, q.To), and per hour
// over the 24 hours ending at min(q.To, now), grouped by q.GroupBy.
func Summarize(q ActivityQuery, recs []Record, now time.Time) Summary {
	if q.GroupBy == "" {
		q.GroupBy = "integration"
	}
	from, to := q.From.UTC(), q.To.UTC()
	s := Summary{From: from, To: to, GroupBy: q.GroupBy, Days: []Bucket{}, Hours: []Bucket{}, Groups: []Group{}}
	day0 := from.Truncate(24 * time.Hour)
	var days []*stats
	var dayGroups []map[string]int
	for d := day0; d.Before(to); d = d.Add(24 * time.Hour) {
		s.Days = append(s.Days, Bucket{Start: d})
		days = append(days, &stats{})
		dayGroups = append(dayGroups, map[string]int{})
	}
	end := to
	if n := now.UTC(); n.Before(end) {
		end = n
	}
	hourEnd := end.Truncate(time.Hour).Add(time.Hour)
	hour0 := hourEnd.Add(-24 * time.Hour)
	var hours [24]stats
	var hourGroups [24]map[string]int
	for i := range hourGroups {
		hourGroups[i] = map[string]int{}
	}
	var total stats
	groups := map[string]*stats{}
	for _, r := range recs {
		if r.Kind != KindToolExecuted {
			continue
		}
		key := r.Integration
		if q.GroupBy == "agent" {
			key = q.agentOf(r).String()
		}
		total.add(r)
		g := groups[key]
		if g == nil {
			g = &stats{}
			groups[key] = g
		}
		g.add(r)
		t := r.Time.UTC()
		if i := int(t.Sub(day0) / (24 * time.Hour)); !t.Before(day0) && i < len(days) {
			days[i].add(r)
			dayGroups[i][key]++
		}
		if i := int(t.Sub(hour0) / time.Hour); !t.Before(hour0) && i < 24 {
			hours[i].add(r)
			hourGroups[i][key]++
		}
	}
	s.Totals = total.done()
	for i := range s.Days {
		s.Days[i].Stats, s.Days[i].Groups = days[i].done(), dayGroups[i]
	}
	for i := range hours {
		s.Hours = append(s.Hours, Bucket{Start: hour0.Add(time.Duration(i) * time.Hour), Stats: hours[i].done(), Groups: hourGroups[i]})
	}
	for k, g := range groups {
		s.Groups = append(s.Groups, Group{Key: k, Stats: g.done()})
	}
	sort.Slice(s.Groups, func(i, j int) bool {
		if s.Groups[i].Calls != s.Groups[j].Calls {
			return s.Groups[i].Calls > s.Groups[j].Calls
		}
		return s.Groups[i].Key < s.Groups[j].Key
	})
	return s
}

// Credential is one credential or agent the records name, for the Audit page's blast-radius list:
// Kind is a Credential* constant, ID what BlastQuery takes, UserID and Email its owner, LastSeen the
// time of its newest record read.
type Credential struct {
	Kind     string    `json:"kind"`
	ID       string    `json:"id"`
	UserID   uuid.UUID `json:"user_id"`
	Email    string    `json:"email,omitempty"`
	LastSeen time.Time `json:"last_seen"`
}

// MaxCredentialScan bounds Credentials: it reads at most this many of the newest records.
const MaxCredentialScan = 5000

// Credentials lists the API keys, OAuth clients, curl sessions and agents the newest
// MaxCredentialScan records of every user name (tool runs, key mints and rotations, curl sessions),
// most recently seen first, at most limit of them.
func (r Reader) Credentials(ctx context.Context, limit int) ([]Credential, error) {
	recs, err := r.scan(ctx, `SELECT record FROM audit_records WHERE kind IN ($1, $2, $3, $4)
		ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $5`,
		string(KindToolExecuted), string(KindAPIKeyMinted), string(KindAPIKeyRotated), string(KindCurlSessionMinted), MaxCredentialScan)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]bool{}
	var out []Credential
	add := func(kind, id string, rec Record) {
		if id == "" || id == uuid.Nil.String() || seen[[2]string{kind, id}] || len(out) >= limit {
			return
		}
		seen[[2]string{kind, id}] = true
		out = append(out, Credential{Kind: kind, ID: id, UserID: rec.UserID, Email: rec.Email, LastSeen: rec.Time})
	}
	for _, rec := range recs {
		agent := rec.AgentID
		if agent == uuid.Nil && rec.UserID != uuid.Nil {
			agent = identitydom.DefaultAgentID(rec.UserID)
		}
		switch rec.Kind {
		case KindToolExecuted:
			switch rec.Via {
			case "api_key":
				add(CredentialAPIKey, rec.ClientID, rec)
			case "oauth":
				add(CredentialOAuthClient, rec.ClientID, rec)
			}
			add(CredentialAgent, agent.String(), rec)
		case KindAPIKeyMinted, KindAPIKeyRotated:
			add(CredentialAPIKey, rec.KeyID.String(), rec)
			add(CredentialAgent, agent.String(), rec)
		case KindCurlSessionMinted:
			add(CredentialCurlSession, rec.SessionID.String(), rec)
		}
	}
	return out, nil
}
