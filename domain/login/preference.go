package login

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// TypeStartPreferenceSet is the event type of StartPreferenceSet, never changed once stored.
const TypeStartPreferenceSet = "toolswitch.start_preference_set"

// What a tool that starts Off by its rule (mutating, destructive, a writing verb, a manifest's
// default_off) is for an organisation's agents until someone switches it.
const (
	StartsOff = "off" // Off (every organisation before it could choose)
	StartsAsk = "ask" // On, each call waiting for a person's approval (Ask)
)

// StartPreferenceSet is an organisation's choice of what such a tool is for its agents: Off, or Ask.
// It does not touch the instance admin's default (admin_default), nor any explicit switch.
type StartPreferenceSet struct {
	Owner            Owner     `json:"owner"`
	MutatingStartsAs string    `json:"mutating_starts_as"`
	By               string    `json:"by,omitempty"`
	At               time.Time `json:"at"`
}

func (StartPreferenceSet) EventType() string { return TypeStartPreferenceSet }

// SetStartPreference sets an organisation's StartPreferenceSet, on its switch stream.
type SetStartPreference struct {
	Event StartPreferenceSet
}

func (c SetStartPreference) decideSwitch(SwitchState) ([]domain.Event, error) {
	ev := c.Event
	if err := checkOwner("start preference", ev.Owner); err != nil {
		return nil, err
	}
	if ev.Owner.Scope != ScopeOrganization {
		return nil, domain.Errorf(domain.CodeInvalid, "what mutating tools start as is an organisation's choice")
	}
	if ev.MutatingStartsAs != StartsOff && ev.MutatingStartsAs != StartsAsk {
		return nil, domain.Errorf(domain.CodeInvalid, "mutating_starts_as is %q or %q", StartsOff, StartsAsk)
	}
	if ev.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "start preference: no time")
	}
	ev.At = ev.At.UTC()
	return []domain.Event{ev}, nil
}
