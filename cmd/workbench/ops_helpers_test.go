package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go"
)

// portalBrowser is a portal user agent signed in as user on the server at base (the cookie is minted
// by m, any replica sharing the key), not following redirects.
func portalBrowser(t *testing.T, m *Main, user uuid.UUID) *http.Client {
	t.Helper()
	cookie, err := m.Sessions.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{
		Transport:     cookieTransport{cookie: cookie, base: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// connectStart calls connect for acme through cs and returns the connection id and claim link.
func connectStart(t *testing.T, cs *sdk.ClientSession) (connectionID, link string) {
	t.Helper()
	var started struct {
		ConnectionID string `json:"connectionId"`
		URL          string `json:"url"`
	}
	call(t, cs, "connect", map[string]any{"integration": "acme"}, &started)
	if started.ConnectionID == "" || started.URL == "" {
		t.Fatalf("connect = %+v", started)
	}
	return started.ConnectionID, started.URL
}

// connectBrowse plays the user's part of a connect: redeem the claim link on the portal at base, give
// consent at the provider, and land the provider's callback on callbackBase (another replica, maybe).
func connectBrowse(t testing.TB, browser *http.Client, base, callbackBase, link string) (callbackSent time.Time) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": link})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/connect/redeem", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var redeemed map[string]string
	json.NewDecoder(resp.Body).Decode(&redeemed) //nolint:errcheck // the status says what went wrong
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || redeemed["url"] == "" {
		t.Fatalf("redeem: %d %v", resp.StatusCode, redeemed)
	}
	resp, err = browser.Get(redeemed["url"])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callback, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil {
		t.Fatalf("provider consent answered %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if callbackBase != "" {
		cb, _ := url.Parse(callbackBase)
		callback.Scheme, callback.Host = cb.Scheme, cb.Host
	}
	callbackSent = time.Now()
	resp, err = browser.Get(callback.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || back == nil || back.Query().Get("connected") != "acme" {
		t.Fatalf("callback answered %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return callbackSent
}

// waitForConnection runs wait_for_connection through cs and returns its text.
func waitForConnection(cs *sdk.ClientSession, connectionID string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait_for_connection",
		Arguments: map[string]any{"connectionId": connectionID, "timeout_seconds": int(timeout.Seconds())}})
	switch {
	case err != nil:
		return "error: " + err.Error()
	case len(res.Content) != 1:
		return fmt.Sprintf("content: %+v", res.Content)
	default:
		return res.Content[0].(*sdk.TextContent).Text
	}
}

// natsURLOrSkip is WORKBENCH_TEST_NATS_URL when NATS answers there. Without it the test is skipped,
// and fails under CI=true.
func natsURLOrSkip(t *testing.T) string {
	t.Helper()
	u := os.Getenv("WORKBENCH_TEST_NATS_URL")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("WORKBENCH_TEST_NATS_URL is not set in CI")
		}
		t.Skip("WORKBENCH_TEST_NATS_URL is not set; skipping the NATS test")
	}
	nc, err := nats.Connect(u, nats.Timeout(2*time.Second))
	if err != nil {
		t.Fatalf("NATS at WORKBENCH_TEST_NATS_URL=%s: %v", u, err)
	}
	nc.Close()
	return u
}

// natsPrefix is a BUS_NATS_PREFIX of the test's own; its stream is deleted when the test ends.
func natsPrefix(t *testing.T, natsURL string) string {
	t.Helper()
	prefix := "wbtest_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	t.Cleanup(func() {
		nc, err := nats.Connect(natsURL)
		if err != nil {
			return
		}
		defer nc.Close()
		if js, err := nc.JetStream(); err == nil {
			_ = js.DeleteStream(prefix + "_events")
		}
	})
	return prefix
}
