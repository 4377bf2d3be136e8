package connections_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/connections"
)

// A credential document prints as a placeholder however it is printed or logged, alone, by pointer,
// inside a struct or wrapped in an error.
func TestDocumentRedactsItself(t *testing.T) {
	const secret = "s3cr3t-token-value"
	doc := connections.Document{
		AccessToken: secret, RefreshToken: secret, Fields: map[string]string{"api_key": secret},
		Cookies:    []connections.Cookie{{Name: "sid", Value: secret, Domain: "example.com"}},
		AuthedUser: &connections.Token{AccessToken: secret},
	}
	var out bytes.Buffer
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		fmt.Fprintf(&out, verb+"\n", doc)
		fmt.Fprintf(&out, verb+"\n", &doc)
		fmt.Fprintf(&out, verb+"\n", struct{ D connections.Document }{doc})
	}
	fmt.Fprintln(&out, fmt.Errorf("wrapped: %v", doc), errors.New(fmt.Sprint(doc)))
	for _, h := range []slog.Handler{slog.NewTextHandler(&out, nil), slog.NewJSONHandler(&out, nil)} {
		slog.New(h).Info("credential", "doc", doc, "ptr", &doc)
	}
	if strings.Contains(out.String(), secret) {
		t.Fatalf("a secret reached the output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "connections.Document{redacted}") {
		t.Fatalf("no placeholder in the output:\n%s", out.String())
	}
}
