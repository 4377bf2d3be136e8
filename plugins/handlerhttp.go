package plugins

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/workbench/workbench/domain"
)

// Send is how a Go handler makes its request: through the runtime's guarded client (credential
// injected, hosts limited), reading at most limit bytes of the answer. Its errors are caller-safe
// application errors naming the tool and the provider; the injector's own errors (not connected, a
// failed refresh) pass through unchanged. The body is read and closed.
func Send(rc Context, tool, provider string, req *http.Request, limit int) (*http.Response, []byte, error) {
	resp, err := rc.HTTP().Do(req)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, nil, err
		}
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return nil, nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: request to %s failed: %v", tool, provider, cause), Err: cause}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: reading the response from %s failed: %v", tool, provider, err), Err: err}
	}
	if len(data) > limit {
		return nil, nil, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: the response from %s is larger than %d bytes", tool, provider, limit)}
	}
	return resp, data, nil
}

// ProviderHTTPError is the one shape of a provider's HTTP error answer, for declarative tools and Go
// handlers alike: "<tool>: <provider> answered HTTP <status>: <the provider's message>", with the
// application code the status implies and, on 429, the Retry-After the provider asked for.
func ProviderHTTPError(tool, provider string, resp *http.Response, data []byte) error {
	msg := providerMessage(data)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	if ra := resp.Header.Get("Retry-After"); resp.StatusCode == http.StatusTooManyRequests && ra != "" {
		msg += " (retry after " + ra + " s)"
	}
	msg = Truncate(msg, MaxErrorMessage)
	code := domain.CodeInvalid
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		code = domain.CodeForbidden
	case resp.StatusCode == http.StatusNotFound:
		code = domain.CodeNotFound
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		code = domain.CodeUnavailable
	}
	return &domain.Error{
		Code:    code,
		Message: fmt.Sprintf("%s: %s answered HTTP %d: %s", tool, provider, resp.StatusCode, msg),
		Err:     &UpstreamError{Status: resp.StatusCode, Message: msg},
	}
}
