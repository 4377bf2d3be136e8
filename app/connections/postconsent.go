package connections

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// maxPostConsentValue bounds one stored post-consent value (Atlassian's cloud id is a UUID).
const maxPostConsentValue = 256

// postConsent runs the manifest's auth.oauth2.post_consent step with a fresh access token: a GET to
// its URL with the token as a Bearer credential (RFC 6750 section 2.1), then each extra key's RFC 6901
// pointer into the JSON answer. The values are returned as JSON strings for Document.Extra. A value
// that is missing (Atlassian lists no site the app may reach) fails the connect with a message that
// says so; nothing of the token reaches an error.
func (s *Service) postConsent(ctx context.Context, in *plugins.Integration, token string) (map[string]json.RawMessage, error) {
	pc := in.Auth.OAuth2.PostConsent
	if pc == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, tokenRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pc.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%s post-consent request: %w", in.Name, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s could not be reached to finish connecting", in.DisplayName), Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse+1))
	if err != nil || len(body) > maxTokenResponse {
		return nil, domain.Errorf(domain.CodeUnavailable, "%s's answer to the post-consent lookup could not be read", in.DisplayName)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, domain.Errorf(domain.CodeUnavailable, "%s answered the post-consent lookup with HTTP %d", in.DisplayName, resp.StatusCode)
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, domain.Errorf(domain.CodeUnavailable, "%s answered the post-consent lookup with something that is not JSON", in.DisplayName)
	}
	out := map[string]json.RawMessage{}
	for _, key := range in.CredentialKeys() {
		v, ok := plugins.JSONPointer(doc, pc.Extra[key])
		var str string
		switch v := v.(type) {
		case string:
			str = v
		case float64:
			str = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			ok = false
		}
		if !ok || str == "" || len(str) > maxPostConsentValue || strings.IndexFunc(str, unicode.IsControl) >= 0 {
			return nil, domain.Errorf(domain.CodeInvalid, "%s gave no usable %s (nothing at %s in its answer): the account may have no site this app was granted; grant access to a site and connect again", in.DisplayName, key, pc.Extra[key])
		}
		raw, _ := json.Marshal(str)
		out[key] = raw
	}
	return out, nil
}

// credentialValues are the stored post-consent values an integration's URLs need, by key; a missing
// one is NOT_CONNECTED (the connection predates the lookup).
func credentialValues(in *plugins.Integration, doc Document) (map[string]string, error) {
	keys := in.CredentialKeys()
	if len(keys) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		var v string
		if raw, ok := doc.Extra[k]; !ok || json.Unmarshal(raw, &v) != nil || v == "" {
			return nil, domain.Errorf(domain.CodeNotConnected, "the %s connection has no %s stored; reconnect it with connect('%s')", in.Name, k, in.Name)
		}
		out[k] = v
	}
	return out, nil
}
