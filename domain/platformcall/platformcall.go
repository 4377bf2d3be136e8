// Package platformcall counts the calls organisations make on platform logins (spec connectors.md,
// Platform logins: calls are counted per organisation, connector and UTC month, and
// OrgLimits.monthlyConnectorCalls caps them by connector slug).
//
// Each organisation, connector and month is its own stream, platformcalls-<org>-<server id>-<YYYY-MM>,
// one Counted event a call, so the stream's version is the count. A call on a capped connector is
// appended with the version the count was read at: two calls that race both read the same count, and
// the second append fails its expected version and decides again on the new count, so a cap is never
// overshot, even by one, across replicas (and the stream never holds more than the cap). A call on an
// uncapped connector has nothing to decide and is appended whatever the version (Record). A call that is
// refused appends nothing; a call that is counted is counted before it reaches the provider, so one
// that then fails at the provider still counts (it may have cost the platform's key a request).
package platformcall

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// TypeCounted names the event in the log.
const TypeCounted = "platformcall.counted"

// Source is the <source> of the limit message: the limit is the platform's policy
// (WORKBENCH_ORG_LIMITS), not the provider's.
const Source = "platform"

// LimitMessage is a capped call's whole result: ERROR: <source> limit reached: <slug> calls this month.
func LimitMessage(slug string) string {
	return fmt.Sprintf("ERROR: %s limit reached: %s calls this month", Source, slug)
}

// Month is the UTC month of t, as YYYY-MM.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// StreamName is the stream of one organisation's calls on one connector in one month.
func StreamName(org uuid.UUID, serverID, month string) string {
	return "platformcalls-" + org.String() + "-" + serverID + "-" + month
}

// Counted is one call on a platform login. Count is the month's count with it when the call was
// decided against a cap (Decide); an uncapped call is recorded without reading the stream (Record)
// and carries none. Either way the stream holds one event a call, so its version is the count.
type Counted struct {
	OrgID    uuid.UUID `json:"org_id"`
	ServerID string    `json:"server_id"`
	Slug     string    `json:"slug"`
	Month    string    `json:"month"`
	Count    int       `json:"count,omitempty"`
	At       time.Time `json:"at"`
}

func (Counted) EventType() string { return TypeCounted }

// Events lists the event types, for a codec.
func Events() []domain.Event { return []domain.Event{Counted{}} }

// State is the month's count so far.
type State struct{ Count int }

// Initial is the count of no stream.
func Initial() State { return State{} }

// Evolve folds one event: every event is one call.
func Evolve(s State, e domain.Event) State {
	if _, ok := e.(Counted); ok {
		s.Count++
	}
	return s
}

// Count counts one call. Capped says whether the slug has a cap, Cap its value.
type Count struct {
	OrgID    uuid.UUID
	ServerID string
	Slug     string
	Capped   bool
	Cap      int
	At       time.Time
}

// Record is the event of a call on a connector with no cap: nothing is decided, so it is appended
// whatever the stream's version, without reading the month's stream (which grows with every call)
// and without racing other calls on it.
func Record(c Count) (Counted, error) {
	if c.ServerID == "" || c.Slug == "" || c.At.IsZero() {
		return Counted{}, domain.Errorf(domain.CodeInvalid, "count a call: no connector, slug or time")
	}
	return Counted{OrgID: c.OrgID, ServerID: c.ServerID, Slug: c.Slug, Month: Month(c.At), At: c.At.UTC()}, nil
}

// Decide counts the call, or refuses it with CodeConflict and LimitMessage when the month's count has
// reached the cap.
func Decide(s State, c Count) ([]domain.Event, error) {
	if c.ServerID == "" || c.Slug == "" || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "count a call: no connector, slug or time")
	}
	if c.Capped && s.Count >= c.Cap {
		return nil, domain.Errorf(domain.CodeConflict, "%s", LimitMessage(c.Slug))
	}
	return []domain.Event{Counted{OrgID: c.OrgID, ServerID: c.ServerID, Slug: c.Slug, Month: Month(c.At), Count: s.Count + 1, At: c.At.UTC()}}, nil
}
