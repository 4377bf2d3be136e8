package connections

import (
	"context"
	"fmt"

	"github.com/workbench/workbench/internal/config"
)

// OAuthSetup reports whether an oauth2 integration's OAuth client is set (the platform key
// integration:<name>, read now, else <PLUGIN>_CLIENT_ID), and when not, the instruction for an
// instance admin: the redirect URI to register with the provider and the platform key to set (or the
// environment variables). The portal shows it to instance admins instead of a Connect button that
// could only fail; members are only told to ask their admin.
func (s *Service) OAuthSetup(ctx context.Context, integration string) (configured bool, instruction string) {
	if _, _, err := s.clientCredentials(ctx, integration); err == nil {
		return true, ""
	}
	p := config.PluginEnvPrefix(integration)
	return false, fmt.Sprintf("Not set up on this server. Register an OAuth app with the provider, with the redirect URI %s, "+
		"then set the platform key %s (Admin, Platform keys) to its client ID and client secret: it applies at once, with no restart. "+
		"(The environment's %s_CLIENT_ID and %s_CLIENT_SECRET, read at start, also work.)",
		s.RedirectURI(integration), PlatformKeyName(integration), p, p)
}
