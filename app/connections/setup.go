package connections

import (
	"fmt"

	"github.com/workbench/workbench/internal/config"
)

// OAuthSetup reports whether the operator has set the OAuth client of an oauth2 integration
// (<PLUGIN>_CLIENT_ID), and when not, the operator's instruction: what to register with the
// provider and which settings to give the server. The portal shows the instruction instead of a
// Connect button that could only fail.
func (s *Service) OAuthSetup(integration string) (configured bool, instruction string) {
	if _, _, err := s.clientCredentials(integration); err == nil {
		return true, ""
	}
	p := config.PluginEnvPrefix(integration)
	return false, fmt.Sprintf("Not set up on this server. The operator registers an OAuth app with the provider, "+
		"with the redirect URI %s, then sets %s_CLIENT_ID (and %s_CLIENT_SECRET, unless the app is a public PKCE client) "+
		"and restarts Workbench.", s.RedirectURI(integration), p, p)
}
