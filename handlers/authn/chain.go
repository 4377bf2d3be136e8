package authn

import (
	"errors"
	"net/http"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/oauthhttp"
)

// Chain tries authenticators in order and returns the first success, e.g.
// Chain{APIKeys{...}, AccessTokens{...}}: an API key and an OAuth access token are both Bearer tokens,
// and each authenticator refuses what is not its own kind. When all fail, the error is the last one that
// is not a mere "no credential" or "not an access token", so the refusal of the authenticator that
// recognised the credential is the one reported. A CodeUnavailable error (the credential could not be
// checked) outranks every refusal: one authenticator's "unknown" means little while another could not
// look the credential up.
type Chain []mcp.Authenticator

var _ mcp.Authenticator = Chain{}

// Authenticate implements mcp.Authenticator.
func (c Chain) Authenticate(r *http.Request) (mcp.Principal, error) {
	var errs []error
	for _, a := range c {
		p, err := a.Authenticate(r)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return mcp.Principal{}, ErrNoCredential
	}
	for _, err := range errs {
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			return mcp.Principal{}, err
		}
	}
	for i := len(errs) - 1; i >= 0; i-- {
		if !errors.Is(errs[i], ErrNoCredential) && !errors.Is(errs[i], oauthhttp.ErrNotAccessToken) {
			return mcp.Principal{}, errs[i]
		}
	}
	return mcp.Principal{}, errs[0]
}
