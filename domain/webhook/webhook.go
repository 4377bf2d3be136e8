// Package webhook is an organisation's webhooks: HTTPS endpoints that receive, signed, the events its
// people must act on (a connection that needs re-authorization or was disconnected, a call waiting
// for approval, a spent budget). An organisation's webhooks are one stream (StreamName); each
// webhook's signing secret is sealed under its own vault subject, shredded when it is removed.
package webhook

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeRegistered = "webhook.registered"
	TypeRemoved    = "webhook.removed"
)

// The events a webhook may receive (its body's "type").
const (
	EventNeedsReauth       = "connection.needs_reauth"
	EventDisconnected      = "connection.disconnected"
	EventApprovalRequested = "approval.requested"
	EventBudgetExhausted   = "budget.exhausted"
)

// Kinds lists them.
var Kinds = []string{EventNeedsReauth, EventDisconnected, EventApprovalRequested, EventBudgetExhausted}

// MaxPerOrganization bounds an organisation's webhooks.
const MaxPerOrganization = 10

// StreamName is the stream of one organisation's webhooks.
func StreamName(org uuid.UUID) string { return "webhooks-" + org.String() }

// SecretSubject is the vault subject a webhook's secret is sealed under.
func SecretSubject(id uuid.UUID) string { return "webhook:" + id.String() }

// Registered adds a webhook.
type Registered struct {
	WebhookID uuid.UUID     `json:"webhook_id"`
	OrgID     uuid.UUID     `json:"org_id"`
	URL       string        `json:"url"`
	Events    []string      `json:"events"`
	Secret    domain.Sealed `json:"secret"`
	By        uuid.UUID     `json:"by"`
	At        time.Time     `json:"at"`
}

// Removed deletes one.
type Removed struct {
	WebhookID uuid.UUID `json:"webhook_id"`
	OrgID     uuid.UUID `json:"org_id"`
	By        uuid.UUID `json:"by"`
	At        time.Time `json:"at"`
}

func (Registered) EventType() string { return TypeRegistered }
func (Removed) EventType() string    { return TypeRemoved }

// Events lists the event types, for a codec.
func Events() []domain.Event { return []domain.Event{Registered{}, Removed{}} }

// State is an organisation's webhooks, by id.
type State struct {
	Hooks map[uuid.UUID]Registered
}

// Initial is the state of an empty stream.
func Initial() State { return State{} }

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Registered:
		next := make(map[uuid.UUID]Registered, len(s.Hooks)+1)
		for k, v := range s.Hooks {
			next[k] = v
		}
		next[ev.WebhookID] = ev
		s.Hooks = next
	case Removed:
		next := make(map[uuid.UUID]Registered, len(s.Hooks))
		for k, v := range s.Hooks {
			if k != ev.WebhookID {
				next[k] = v
			}
		}
		s.Hooks = next
	}
	return s
}

// Command is Register or Remove.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into events or refuses it with a *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// Register adds a webhook; the service checked its URL (https, a public address).
type Register struct {
	Event Registered
}

func (c Register) decide(s State) ([]domain.Event, error) {
	e := c.Event
	if e.WebhookID == uuid.Nil || e.OrgID == uuid.Nil || e.URL == "" || e.Secret.IsZero() || e.By == uuid.Nil || e.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "register a webhook: no id, organisation, url, secret, person or time")
	}
	if len(s.Hooks) >= MaxPerOrganization {
		return nil, domain.Errorf(domain.CodeConflict, "an organisation has at most %d webhooks; remove one first", MaxPerOrganization)
	}
	if len(e.Events) == 0 {
		return nil, domain.Errorf(domain.CodeInvalid, "a webhook receives at least one of %v", Kinds)
	}
	seen := map[string]bool{}
	for _, k := range e.Events {
		if !slices.Contains(Kinds, k) || seen[k] {
			return nil, domain.Errorf(domain.CodeInvalid, "%q is not one of %v, or is named twice", k, Kinds)
		}
		seen[k] = true
	}
	e.Events = slices.Sorted(slices.Values(e.Events))
	e.At = e.At.UTC()
	return []domain.Event{e}, nil
}

// Remove deletes a webhook.
type Remove struct {
	WebhookID uuid.UUID
	By        uuid.UUID
	At        time.Time
}

func (c Remove) decide(s State) ([]domain.Event, error) {
	h, ok := s.Hooks[c.WebhookID]
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "no webhook %s", c.WebhookID)
	}
	return []domain.Event{Removed{WebhookID: c.WebhookID, OrgID: h.OrgID, By: c.By, At: c.At.UTC()}}, nil
}
