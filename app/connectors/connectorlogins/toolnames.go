package connectorlogins

import (
	"context"

	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// modelNames names the listed tools for the model (connector.ModelNames: unique, at most 128
// characters) and logs each tool that got a suffix.
func modelNames(ctx context.Context, s *Service, srv connectorsrm.Server, listed []connector.Tool) []string {
	remotes := make([]string, len(listed))
	for i, t := range listed {
		remotes[i] = t.Name
	}
	names, renamed := connector.ModelNames(srv.ToolPrefix, remotes)
	for _, r := range renamed {
		for i := range remotes {
			if remotes[i] == r && names[i] != "" {
				s.Log.WarnContext(ctx, "listed tool renamed: its name collides with another once sanitised or is over 128 characters", "server", srv.ID, "tool", r, "name", names[i])
				break
			}
		}
	}
	return names
}
