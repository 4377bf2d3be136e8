package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
)

// Limits of a key check: it is one small "who am I" call.
const (
	verifyTimeout     = 15 * time.Second
	maxVerifyResponse = 1 << 20
)

// HasKeyCheck reports whether the manifest declares auth.apikey.verify.
func (in *Integration) HasKeyCheck() bool {
	return in.Auth.Mode == AuthAPIKey && in.Auth.APIKey != nil && in.Auth.APIKey.Verify != nil
}

// VerifyAPIKey sends the manifest's auth.apikey.verify request with the candidate fields injected as
// every request would carry them, through the runtime's guarded client (so it reaches only the
// integration's own origins). It returns nil when the provider accepts the key or the manifest
// declares no check; a *domain.Error with CodeInvalid ("<Provider> refused this key: …") on 401 or 403
// (or on a non-empty error_pointer array in a 2xx answer); and CodeUnavailable on anything else (the
// provider unreachable, 5xx, 429, another status), so the caller stores nothing unless it is nil.
// transport nil means http.DefaultTransport. No field value ever appears in an error.
func (in *Integration) VerifyAPIKey(ctx context.Context, fields map[string]string, transport http.RoundTripper) error {
	if !in.HasKeyCheck() {
		return nil
	}
	v := in.Auth.APIKey.Verify
	inj, err := in.APIKeyInjector(fields)
	if err != nil {
		return &domain.Error{Code: domain.CodeInvalid, Message: domain.ErrorMessage(err), Err: err}
	}
	rc := NewContext(in, ContextOptions{Injector: inj, Transport: transport})
	base := in.baseURL
	if base == nil {
		return &domain.Error{Code: domain.CodeInternal, Message: fmt.Sprintf("%s: the key check has no base URL", in.DisplayName)}
	}
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + v.Path
	u.RawPath = ""
	if len(v.Query) > 0 {
		q := url.Values{}
		for k, val := range v.Query {
			q.Set(k, val)
		}
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	if v.Body != nil {
		b, err := json.Marshal(v.Body)
		if err != nil {
			return fmt.Errorf("%s key check body: %w", in.Name, err)
		}
		body = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, v.Method, u.String(), body)
	if err != nil {
		return fmt.Errorf("%s key check: %w", in.Name, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "workbench")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, val := range in.Headers {
		req.Header.Set(k, val)
	}
	resp, err := rc.HTTP().Do(req)
	if err != nil {
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err // the URL may carry a query-injected key: never echo it
		}
		return &domain.Error{Code: domain.CodeUnavailable,
			Message: fmt.Sprintf("%s could not be reached to check this key (%v); nothing was stored, try again", in.DisplayName, cause), Err: cause}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxVerifyResponse))
	msg := func() string {
		m := providerMessage(data)
		if m == "" {
			m = http.StatusText(resp.StatusCode)
		}
		return Truncate(redactFields(m, fields), MaxErrorMessage)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s refused this key: HTTP %d: %s", in.DisplayName, resp.StatusCode, msg()),
			Err: &UpstreamError{Status: resp.StatusCode, Message: msg()}}
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return &domain.Error{Code: domain.CodeUnavailable,
			Message: fmt.Sprintf("%s could not check this key: it answered HTTP %d: %s; nothing was stored, try again", in.DisplayName, resp.StatusCode, msg()),
			Err:     &UpstreamError{Status: resp.StatusCode, Message: msg()}}
	}
	if v.ErrorPointer != "" {
		var doc any
		if json.Unmarshal(data, &doc) == nil {
			if list, ok := JSONPointer(doc, v.ErrorPointer); ok {
				if errs := ErrorMessages(list); errs != "" {
					return &domain.Error{Code: domain.CodeInvalid,
						Message: fmt.Sprintf("%s refused this key: %s", in.DisplayName, Truncate(redactFields(errs, fields), MaxErrorMessage))}
				}
			}
		}
	}
	return nil
}

// redactFields removes the candidate's values from a provider message, should a provider echo them.
func redactFields(s string, fields map[string]string) string {
	for _, v := range fields {
		if len(v) >= 4 {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}
