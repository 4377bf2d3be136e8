package browserdom

import (
	"github.com/workbench/workbench/domain"
)

// Command is one of the commands of a user's browser session stream.
type Command interface{ isCommand() }

// RecordStart records a spawned Chromium.
type RecordStart struct{ Event BrowserSessionStarted }

// RecordStop records a closed or crashed Chromium.
type RecordStop struct{ Event BrowserSessionStopped }

// RecordReset records a wiped profile.
type RecordReset struct{ Event BrowserSessionReset }

// RecordCapture records captured cookies.
type RecordCapture struct{ Event BrowserCookiesCaptured }

// HandOver gives control to a person.
type HandOver struct{ Event BrowserControlHandedOver }

// TakeBack returns control to the agent.
type TakeBack struct{ Event BrowserControlTakenBack }

func (RecordStart) isCommand()   {}
func (RecordStop) isCommand()    {}
func (RecordReset) isCommand()   {}
func (RecordCapture) isCommand() {}
func (HandOver) isCommand()      {}
func (TakeBack) isCommand()      {}

// State is a user's browser session stream folded.
type State struct {
	// Running: a Chromium was started and has not been recorded as stopped or reset since.
	Running bool
	// HumanInControl: a person has control (handed over, not taken back; a stop or reset ends it).
	HumanInControl bool
	// Starts counts the Chromiums ever started for the user.
	Starts int
	// Holder is the replica whose Chromium runs the session (BrowserSessionStarted.Replica) while
	// Running; empty otherwise, or when the start did not name one.
	Holder string
}

// Evolve folds one event into the state.
func Evolve(s State, e domain.Event) State {
	switch e := e.(type) {
	case BrowserSessionStarted:
		s.Running = true
		s.Starts++
		s.Holder = e.Replica
	case BrowserSessionStopped:
		// A stop on a replica that is not the recorded holder (two replicas started the session at once)
		// leaves the holder's session running.
		if e.Replica != "" && s.Holder != "" && e.Replica != s.Holder {
			return s
		}
		s.Running, s.HumanInControl, s.Holder = false, false, ""
	case BrowserSessionReset:
		s.Running, s.HumanInControl, s.Holder = false, false, ""
	case BrowserControlHandedOver:
		s.HumanInControl = true
	case BrowserControlTakenBack:
		s.HumanInControl = false
	}
	return s
}

// Decide turns a command into its event. A complete event is always recorded for a start, a reset or a
// capture; a stop of a session not running, a hand-over while a person already has control and a take-back
// while none has are already true and record nothing.
func Decide(s State, c Command) ([]domain.Event, error) {
	switch c := c.(type) {
	case RecordStart:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		return []domain.Event{c.Event}, nil
	case RecordStop:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		if !s.Running {
			return nil, nil
		}
		return []domain.Event{c.Event}, nil
	case RecordReset:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		return []domain.Event{c.Event}, nil
	case RecordCapture:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		return []domain.Event{c.Event}, nil
	case HandOver:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		if s.HumanInControl {
			return nil, nil
		}
		return []domain.Event{c.Event}, nil
	case TakeBack:
		if err := c.Event.Validate(); err != nil {
			return nil, err
		}
		if !s.HumanInControl {
			return nil, nil
		}
		return []domain.Event{c.Event}, nil
	}
	return nil, domain.Errorf(domain.CodeInvalid, "browser session: unknown command %T", c)
}
