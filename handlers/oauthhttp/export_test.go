package oauthhttp

import (
	"github.com/go-jose/go-jose/v3"
	josejwt "github.com/go-jose/go-jose/v3/jwt"
)

// SignForTest signs claims with the server's access-token key and header, so a test can present a
// token the server itself could have signed but with claims it never issues (another audience).
func (s *Server) SignForTest(claims map[string]any) (string, error) {
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), s.keys.kid)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: s.keys.signer}, opts)
	if err != nil {
		return "", err
	}
	return josejwt.Signed(signer).Claims(claims).CompactSerialize()
}
