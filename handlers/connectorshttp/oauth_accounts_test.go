package connectorshttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/connectors/connectorstest"
)

// Two accounts of one OAuth connector at one agent, each signed in on its own: the sign-in of the
// second ("work") leaves the first connected, each login calls with the token its own sign-in got,
// a sign-in over a connected account is refused, and the default can be moved to work.
func TestOAuthTwoAccounts(t *testing.T) {
	for _, pg := range dialects(t) {
		t.Run(fmt.Sprintf("postgres=%v", pg), func(t *testing.T) {
			a := connectorstest.NewOAuthServer(t)
			n := newOAuthNode(t, pg, a.Resource)
			agent := connectorstest.Agent.String()
			ids := map[string]string{}
			tokens := map[string]string{}
			for _, label := range []string{"", "work"} {
				body := map[string]any{"mcp_server_id": "mcp_hosted", "owner_scope": "agent", "owner_id": agent}
				if label != "" {
					body["account"] = label
				}
				code, _, b := n.c.do("POST", "/api/mcp/connections", body, true)
				if code != 201 {
					t.Fatalf("connect %q: %d %v", label, code, b)
				}
				conn := b["connection"].(map[string]any)
				want := label
				if want == "" {
					want = "default"
				}
				if conn["account"] != want || conn["status"] != "pending" {
					t.Fatalf("connect %q answered %v", label, conn)
				}
				ids[want] = conn["id"].(string)
				if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "connected" || back.Query().Get("connection") != ids[want] {
					t.Fatalf("sign-in of %q came back to %s", label, back)
				}
				issued := a.Issued()
				tokens[want] = issued[len(issued)-1].Access
			}
			if tokens["default"] == tokens["work"] || ids["default"] == ids["work"] {
				t.Fatalf("two sign-ins share a token or a login: %v %v", tokens, ids)
			}
			for _, label := range []string{"default", "work"} {
				code, _, d := n.c.do("GET", "/api/mcp/connections/"+ids[label], nil, false)
				if code != 200 || d["status"] != "connected" || d["account"] != label || d["default"] != (label == "default") {
					t.Fatalf("%s after both sign-ins: %d %v", label, code, d)
				}
				code, _, b := n.c.do("POST", "/api/mcp/connections/"+ids[label]+"/call", map[string]any{"tool": "hosted_echo", "arguments": map[string]any{"text": label}}, true)
				bearers := a.Count(func(a *connectorstest.OAuthServer) int { return len(a.Bearers) })
				var last string
				a.Count(func(a *connectorstest.OAuthServer) int { last = a.Bearers[bearers-1]; return 0 })
				if code != 200 || !strings.Contains(fmt.Sprint(b), "echo: "+label) || last != tokens[label] {
					t.Fatalf("call on %s: %d %v; the resource server saw %q, want %s's token", label, code, b, last, label)
				}
			}
			// A sign-in over the connected work account is refused: remove it first.
			code, _, b := n.c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_hosted", "owner_scope": "agent", "owner_id": agent, "account": "work"}, true)
			if code != 409 || !strings.Contains(fmt.Sprint(b), "account work") {
				t.Fatalf("a sign-in over connected work: %d %v", code, b)
			}
			if code, _, b := n.c.do("POST", "/api/mcp/connections/"+ids["work"]+"/default", nil, true); code != 200 || b["connection"].(map[string]any)["default"] != true {
				t.Fatalf("choose work: %d %v", code, b)
			}
			if code, _, d := n.c.do("GET", "/api/mcp/connections/"+ids["default"], nil, false); code != 200 || d["default"] != false {
				t.Fatalf("the first account after choosing work: %d %v", code, d)
			}
		})
	}
}
