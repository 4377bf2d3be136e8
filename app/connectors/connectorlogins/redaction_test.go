package connectorlogins_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
)

// encodedForms are the ways a remote echoes the token it was called with; the tool answers one per
// line.
func encodedForms(tok string) []string {
	return []string{
		strings.ToUpper(tok),
		base64.StdEncoding.EncodeToString([]byte(tok)),
		base64.RawStdEncoding.EncodeToString([]byte("x" + tok + "yz")),
		base64.URLEncoding.EncodeToString([]byte("ab" + tok)),
		base64.RawURLEncoding.EncodeToString([]byte(`{"token":"` + tok + `"}`)),
		hex.EncodeToString([]byte(tok)),
		strings.ToUpper(hex.EncodeToString([]byte(tok))),
		tok[:6] + "\n" + tok[6:],
		tok[:4] + " " + tok[4:11] + "\r\n" + tok[11:],
	}
}

// addEncodings gives the remote a tool "encodings" that answers the caller's token in every form.
func addEncodings(r *connectorstest.Remote) {
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "encodings", Description: "Say which token called, encoded."}, func(ctx context.Context, req *mcp.CallToolRequest, a connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		tok := strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
		var c []mcp.Content
		for _, f := range encodedForms(tok) {
			c = append(c, &mcp.TextContent{Text: "form: " + f + " end"})
		}
		return &mcp.CallToolResult{Content: c}, nil, nil
	})
}

// checkEncodedRedacted asserts every encoded form of tok came back as with, and nothing of tok
// longer than a few bytes is left.
func checkEncodedRedacted(t *testing.T, what string, out json.RawMessage, tok, with string) {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v: %s", what, err, out)
	}
	forms := encodedForms(tok)
	if len(res.Content) != len(forms) {
		t.Fatalf("%s: %d blocks: %s", what, len(res.Content), out)
	}
	for i, c := range res.Content {
		if !strings.HasPrefix(c.Text, "form: ") || !strings.HasSuffix(c.Text, " end") || !strings.Contains(c.Text, with) {
			t.Errorf("%s: form %d (%q) came back as %q", what, i, forms[i], c.Text)
		}
	}
	if low := strings.ToLower(string(out)); strings.Contains(low, strings.ToLower(tok)) || strings.Contains(low, hex.EncodeToString([]byte(tok))) {
		t.Errorf("%s: the token is in %s", what, out)
	}
}

// A remote that echoes a login's token base64-, hex- or case-encoded, or split over lines, gets it
// redacted on both paths a result takes: execute_tools and the portal's test call.
func TestEncodedSecretsAreRedacted(t *testing.T) {
	const tok = "tok-Encoded-Secret-42"
	r := newRemote(t, tok)
	addEncodings(r)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)

	o := w.Run(agent, "remote_encodings", `{"text":""}`)
	if o.Code != "" {
		t.Fatalf("run = %+v", o)
	}
	checkEncodedRedacted(t, "execute_tools", o.Result, tok, "[REDACTED]")

	out, _, err := w.Svc.TestCall(w.Ctx, user, res.Login.ID, "remote_encodings", json.RawMessage(`{"text":""}`))
	if err != nil {
		t.Fatal(err)
	}
	checkEncodedRedacted(t, "test call", out, tok, "[REDACTED]")
}

// The platform key every organisation shares is redacted in every form too, by its label.
func TestEncodedPlatformKeyIsRedacted(t *testing.T) {
	r := newRemote(t, platKey)
	addEncodings(r)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}})
	w.setKey(platKey)
	if _, ok := w.platformLogin(); !ok {
		t.Fatal("no platform login after the key was set")
	}
	o := w.Run(agent, "webplat_encodings", `{"text":""}`)
	if o.Code != "" {
		t.Fatalf("run = %+v", o)
	}
	checkEncodedRedacted(t, "platform key", o.Result, platKey, "[REDACTED:platform_webplat_token]")
}
