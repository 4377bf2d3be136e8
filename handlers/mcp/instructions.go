package mcp

import (
	"context"
	"net/http"
	"strings"
)

// RunInstructor is implemented by a ToolSet whose instructions depend on the caller at a run start:
// the connectors' state hooks and guidance (app/connectors RunContext). initialize calls it while
// the run start's other work (RunStarter) goes on, and adds what it answers to Options.Instructions
// in the initialize result's instructions. It must bound its own time: initialize waits for it (the
// connectors' hooks run under a 5-second budget), so it adds at most that budget to initialize when
// the caller's agent has a connector with a state hook, and nothing otherwise.
type RunInstructor interface {
	RunInstructions(ctx context.Context, p Principal) string
}

// beginInstructions starts the ToolSet's run instructions for a new session and returns a function
// that waits for them and answers the session's whole instructions.
func (s *Server) beginInstructions(r *http.Request, p Principal) func() string {
	ri, ok := s.opts.Tools.(RunInstructor)
	if !ok {
		return func() string { return s.opts.Instructions }
	}
	done := make(chan string, 1)
	go func() { done <- ri.RunInstructions(r.Context(), p) }()
	return func() string {
		extra := strings.TrimSpace(<-done)
		switch {
		case extra == "":
			return s.opts.Instructions
		case s.opts.Instructions == "":
			return extra
		}
		return s.opts.Instructions + "\n\n" + extra
	}
}
