package metatools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/proxy"
	"github.com/workbench/workbench/plugins"
)

// curl_session through the real proxy minting: the answer tells the agent where to send what, and a
// refusal names every integration that failed, with nothing minted.
func TestCurlSession(t *testing.T) {
	e := newEnv(t, nil)
	issuer, err := proxy.NewIssuer([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	px, err := curlsessions.New(curlsessions.Options{Catalog: e.set.opts.Registry, Credentials: e.creds, Store: e.store, Tokens: issuer, PublicURL: "https://wb.example"})
	if err != nil {
		t.Fatal(err)
	}
	opts := e.set.opts
	opts.CurlSessions = px
	set, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	mints := func() int {
		envs, err := e.store.ReadAll(context.Background(), eventstore.Start, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, env := range envs {
			if env.Type == curlsession.TypeSessionMinted {
				n++
			}
		}
		return n
	}

	t.Run("refused, naming each", func(t *testing.T) {
		out := call(t, set, "curl_session", `{"integrations":["github","slowpoke","nope"]}`)
		msg, _ := out["error"].(string)
		refused, _ := out["refused"].([]any)
		if len(refused) != 3 || !strings.Contains(msg, "github is not connected") || !strings.Contains(msg, "slowpoke has no proxy block") || !strings.Contains(msg, `"nope" is not an integration`) {
			t.Fatalf("answer %v", out)
		}
		if out["token"] != nil || mints() != 0 {
			t.Fatalf("a refused call minted")
		}
	})

	t.Run("refused, an API-key integration names the portal", func(t *testing.T) {
		out, isError := callResult(t, set, "curl_session", `{"integrations":["newrelic"]}`)
		msg, _ := out["error"].(string)
		refused, _ := out["refused"].([]any)
		if !isError || len(refused) != 1 || !strings.Contains(msg, "https://wb.example.com/integrations") || strings.Contains(msg, "connect(") {
			t.Fatalf("isError=%v answer %v", isError, out)
		}
		if p := refused[0].(map[string]any); p["reason"] != "NOT_CONNECTED" || !strings.Contains(p["message"].(string), "https://wb.example.com/integrations") {
			t.Fatalf("problem %v", p)
		}
		if mints() != 0 {
			t.Fatalf("a refused call minted")
		}
	})

	t.Run("minted", func(t *testing.T) {
		e.creds.access = func(in *plugins.Integration) (Access, error) { return Access{ConnectionVersion: 3}, nil }
		out := call(t, set, "curl_session", `{"integrations":["github"]}`)
		tok, _ := out["token"].(string)
		ins, _ := out["integrations"].([]any)
		if !strings.HasPrefix(tok, "wbcs1.") || out["header"] != "Authorization: Bearer "+tok || len(ins) != 1 {
			t.Fatalf("answer %v", out)
		}
		gh := ins[0].(map[string]any)
		if gh["name"] != "github" || gh["base_url"] != "https://wb.example/c/github/" || gh["upstream"] != "https://api.github.com/" {
			t.Errorf("integration %v", gh)
		}
		exp, err := time.Parse(time.RFC3339, out["expires_at"].(string))
		if err != nil || time.Until(exp) < 14*time.Minute || time.Until(exp) > 15*time.Minute {
			t.Errorf("expires_at %v: %v", out["expires_at"], err)
		}
		if usage, _ := out["usage"].(string); !strings.Contains(usage, "https://wb.example/c/github/") || !strings.Contains(usage, "Authorization: Bearer") {
			t.Errorf("usage %q", usage)
		}
		if mints() != 1 {
			t.Errorf("%d mint events, want 1", mints())
		}
	})

	t.Run("no proxy on this server", func(t *testing.T) {
		if out := call(t, e.set, "curl_session", `{"integrations":["github"]}`); !strings.Contains(out["error"].(string), "not available") {
			t.Fatalf("answer %v", out)
		}
	})
}

// The description keeps the approval rule (spec, "Curl session").
func TestCurlSessionDescriptionAsksForApproval(t *testing.T) {
	e := newEnv(t, nil)
	for _, tool := range e.set.Tools() {
		if tool.Name == "curl_session" {
			if !strings.Contains(tool.Description, "wait for their explicit approval") || !strings.Contains(tool.Description, "which integrations and what you intend to do") {
				t.Fatalf("description %q", tool.Description)
			}
			return
		}
	}
	t.Fatal("no curl_session")
}
