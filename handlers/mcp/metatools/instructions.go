package metatools

import (
	"context"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/handlers/mcp"
)

// RunPrompter is what a run start's instructions need of the connectors use case
// (*connectors.Service): the state its connectors' hooks fill and their guidance, rendered.
type RunPrompter interface {
	RunInstructions(ctx context.Context, caller executions.Caller) string
}

var _ mcp.RunInstructor = (*Set)(nil)

// RunInstructions implements mcp.RunInstructor: when Options.Connectors also runs state hooks
// (RunPrompter), a session's instructions add the state and guidance of the connectors the caller's
// agent has On.
func (s *Set) RunInstructions(ctx context.Context, p mcp.Principal) string {
	rp, ok := s.opts.Connectors.(RunPrompter)
	if !ok {
		return ""
	}
	user, err := uuid.Parse(p.UserID)
	if err != nil {
		return ""
	}
	return rp.RunInstructions(ctx, caller(p, user))
}
