package connector

import (
	"fmt"
	"io"
	"net/http"
)

// Send sends an adapter's request to its provider with the guarded client and reads at most limit
// bytes of the answer. A provider that cannot be reached, an answer that cannot be read and a status
// of 300 or more are each an *Error naming the provider (the last with the status); with a status
// error the body is returned too, for an adapter that reads the provider's own message from it.
func (c Context) Send(req *http.Request, provider string, limit int64) ([]byte, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, &Error{Message: provider + " could not be reached"}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, &Error{Message: provider + "'s answer could not be read"}
	}
	if resp.StatusCode >= 300 {
		return b, &Error{Status: resp.StatusCode, Message: fmt.Sprintf("%s answered %d", provider, resp.StatusCode)}
	}
	return b, nil
}
