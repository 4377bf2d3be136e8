package execution

import "github.com/workbench/workbench/domain"

// Record is the one command of an execution: record it, once it is over, with everything the
// ToolExecuted event holds.
type Record struct {
	Event ToolExecuted
}

// State is an execution stream folded: whether its record is in.
type State struct {
	Recorded bool
}

// Evolve folds one event into the state.
func Evolve(s State, e domain.Event) State {
	if _, ok := e.(ToolExecuted); ok {
		s.Recorded = true
	}
	return s
}

// Decide turns Record into its ToolExecuted event, or refuses it: CodeInvalid for an incomplete
// record, CodeConflict for an execution recorded already (an execution is recorded once).
func Decide(s State, c Record) ([]domain.Event, error) {
	if err := c.Event.Validate(); err != nil {
		return nil, err
	}
	if s.Recorded {
		return nil, domain.Errorf(domain.CodeConflict, "tool executed: execution %s is recorded already", c.Event.ExecutionID)
	}
	return []domain.Event{c.Event}, nil
}
