// Package budget is the rate limits and budgets an organisation, a guild or an agent sets on its
// agents' tool calls: calls per minute (a token bucket) and calls per UTC day, for every tool or for
// one. A scope's budgets are one stream (PolicyStreamName); the calls a budget counts are a stream per
// budget and UTC day (CallsStreamName), one Counted event a call, appended under the stream's version
// so that calls racing on several replicas never overshoot a limit, even by one.
package budget

import (
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeSet       = "budget.set"
	TypeCounted   = "budget.counted"
	TypeRefunded  = "budget.refunded"
	TypeExhausted = "budget.exhausted"
)

// AllTools is the Tool of a budget on every tool of its scope's agents.
const AllTools = "*"

// Max bounds a limit.
const Max = 1_000_000

// Owner is the scope a budget is set at.
type Owner struct {
	Scope string    `json:"scope"` // organization, guild or agent
	ID    uuid.UUID `json:"id"`
}

// Valid reports whether o can hold budgets.
func (o Owner) Valid() bool {
	return (o.Scope == "organization" || o.Scope == "guild" || o.Scope == "agent") && o.ID != uuid.Nil
}

// PolicyStreamName is the stream of one scope's budgets.
func PolicyStreamName(o Owner) string { return "budgets-" + o.Scope + "-" + o.ID.String() }

// Day is the UTC day of t, as YYYY-MM-DD.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// CallsStreamName is the stream of the calls one budget counts in one UTC day.
func CallsStreamName(o Owner, tool, day string) string {
	return "budgetcalls-" + o.Scope + "-" + o.ID.String() + "-" + tool + "-" + day
}

// Set sets (or, with both limits 0, removes) a scope's budget on one tool or on every tool
// (AllTools). A limit of 0 is none.
type Set struct {
	Owner     Owner     `json:"owner"`
	Tool      string    `json:"tool"`
	PerMinute int       `json:"per_minute,omitempty"`
	PerDay    int       `json:"per_day,omitempty"`
	By        string    `json:"by,omitempty"`
	At        time.Time `json:"at"`
}

// Counted is one call a budget let through. PerMinute is the limit it was decided under (the bucket's
// size and refill per minute; 0 when the budget has no per-minute limit).
type Counted struct {
	Owner     Owner     `json:"owner"`
	Tool      string    `json:"tool"`
	PerMinute int       `json:"per_minute,omitempty"`
	At        time.Time `json:"at"`
}

// Refunded gives back a call a budget counted but that did not run (another budget of the same call
// refused it).
type Refunded struct {
	Owner     Owner     `json:"owner"`
	Tool      string    `json:"tool"`
	PerMinute int       `json:"per_minute,omitempty"`
	At        time.Time `json:"at"`
}

// Exhausted records that a budget refused a call: what an organisation's webhook hears
// (budget.exhausted). A replica records it at most once a minute per budget, on the day's calls
// stream; it counts nothing.
type Exhausted struct {
	Owner       Owner     `json:"owner"`
	Tool        string    `json:"tool"`
	Called      string    `json:"called"` // the tool the refused call named
	Integration string    `json:"integration,omitempty"`
	UserID      uuid.UUID `json:"user_id"`
	AgentID     uuid.UUID `json:"agent_id,omitzero"`
	Limit       string    `json:"limit"` // "10 calls a minute"
	At          time.Time `json:"at"`
}

func (Exhausted) EventType() string { return TypeExhausted }

func (Set) EventType() string      { return TypeSet }
func (Counted) EventType() string  { return TypeCounted }
func (Refunded) EventType() string { return TypeRefunded }

// Events lists the event types, for a codec.
func Events() []domain.Event { return []domain.Event{Set{}, Counted{}, Refunded{}, Exhausted{}} }

// SetCommand validates a Set.
func SetCommand(e Set) ([]domain.Event, error) {
	if !e.Owner.Valid() {
		return nil, domain.Errorf(domain.CodeInvalid, "a budget is set at an organization, a guild or an agent, with its id")
	}
	if e.Tool == "" || len(e.Tool) > 128 {
		return nil, domain.Errorf(domain.CodeInvalid, "a budget names one tool, or %q for every tool", AllTools)
	}
	if e.PerMinute < 0 || e.PerDay < 0 || e.PerMinute > Max || e.PerDay > Max {
		return nil, domain.Errorf(domain.CodeInvalid, "per_minute and per_day are 0 (none) to %d", Max)
	}
	if e.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "a budget needs a time")
	}
	e.At = e.At.UTC()
	return []domain.Event{e}, nil
}

// Bucket is one budget's calls of one day folded: the day's count, and the token bucket.
type Bucket struct {
	Count  int
	Tokens float64
	At     time.Time // when Tokens was last worked out; zero: the bucket is full
}

// refill is the bucket at now, refilled at perMinute a minute up to perMinute.
func (b Bucket) refill(now time.Time, perMinute int) float64 {
	if perMinute <= 0 {
		return 0
	}
	if b.At.IsZero() {
		return float64(perMinute)
	}
	t := b.Tokens + now.Sub(b.At).Minutes()*float64(perMinute)
	return math.Min(t, float64(perMinute))
}

// EvolveBucket folds one event of a calls stream.
func EvolveBucket(b Bucket, e domain.Event) Bucket {
	switch ev := e.(type) {
	case Counted:
		b.Tokens = b.refill(ev.At, ev.PerMinute) - 1
		b.At = ev.At
		b.Count++
	case Refunded:
		b.Tokens = math.Min(b.refill(ev.At, ev.PerMinute)+1, float64(max(ev.PerMinute, 1)))
		b.At = ev.At
		b.Count--
	}
	return b
}

// Charge decides whether one more call fits a budget at now: the event that counts it, or, when a
// limit is reached, how long until it would fit.
func Charge(b Bucket, o Owner, tool string, perMinute, perDay int, now time.Time) (domain.Event, time.Duration, string) {
	if perDay > 0 && b.Count >= perDay {
		next := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day()+1, 0, 0, 0, 0, time.UTC)
		return nil, next.Sub(now), calls(perDay) + " a day"
	}
	if perMinute > 0 {
		if t := b.refill(now, perMinute); t < 1 {
			wait := time.Duration((1 - t) / float64(perMinute) * float64(time.Minute))
			return nil, max(wait, time.Millisecond), calls(perMinute) + " a minute"
		}
	}
	return Counted{Owner: o, Tool: tool, PerMinute: perMinute, At: now.UTC()}, 0, ""
}

// Available is how many calls the token bucket holds at now (perMinute when the budget has no
// per-minute limit is meaningless: 0 is returned then).
func (b Bucket) Available(now time.Time, perMinute int) float64 { return b.refill(now, perMinute) }

// calls is "1 call" or "n calls".
func calls(n int) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}
