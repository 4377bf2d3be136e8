package proxy_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/curlsession"
)

// Every method goes to the proxy base URL + path + query with the user's key injected, the body
// passed through, and nothing of the caller's credentials or hop-by-hop headers.
func TestForwardsEveryMethod(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	inbound := map[string]string{
		"Cookie":              "wb_session=portal-secret",
		"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
		"X-Workbench-Session": "mcp-session-id",
		"X-Workbench-Key":     "wbk_secret",
		"Connection":          "X-Hop",
		"X-Hop":               "hop-value",
		"Keep-Alive":          "timeout=5",
		"Forwarded":           "for=10.0.0.1",
		"X-Forwarded-For":     "10.0.0.1",
		"X-Forwarded-Host":    "internal.example",
		"X-Caller":            "kept",
		"Content-Type":        "application/json",
	}
	for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"} {
		t.Run(method, func(t *testing.T) {
			var body io.Reader
			sent := ""
			if method != "GET" && method != "HEAD" {
				sent = `{"title":"` + method + `"}`
				body = strings.NewReader(sent)
			}
			before := e.api.count()
			status, hdr, _ := e.do(t, method, "/c/keyed/repos/o%2Fr/issues?state=open&q=a+b", s.Token, body, inbound)
			if status != 200 || hdr.Get("X-Upstream") != "yes" {
				t.Fatalf("status %d", status)
			}
			if e.api.count() != before+1 {
				t.Fatalf("the provider got %d requests, want 1", e.api.count()-before)
			}
			got := e.api.last(t)
			if got.Method != method || got.RequestURI != "/base/repos/o%2Fr/issues?state=open&q=a+b" {
				t.Errorf("provider got %s %s", got.Method, got.RequestURI)
			}
			if got.Host != strings.TrimPrefix(e.api.srv.URL, "http://") {
				t.Errorf("Host %q", got.Host)
			}
			if got.Header.Get("X-Api-Key") != apiKey {
				t.Errorf("injected credential %q", got.Header.Get("X-Api-Key"))
			}
			if string(got.Body) != sent {
				t.Errorf("body %q, want %q", got.Body, sent)
			}
			for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", "X-Workbench-Session", "X-Workbench-Key", "X-Hop", "Keep-Alive", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host"} {
				if v := got.Header.Values(h); len(v) > 0 {
					t.Errorf("the provider received %s: %q", h, v)
				}
			}
			for k, vs := range got.Header {
				for _, v := range vs {
					if strings.Contains(v, s.Token) || strings.Contains(v, "portal-secret") || strings.Contains(v, "wbk_secret") {
						t.Errorf("the provider received a workbench secret in %s", k)
					}
				}
			}
			if got.Header.Get("X-Caller") != "kept" || got.Header.Get("Accept") != "application/vnd.keyed+json" || got.Header.Get("User-Agent") == "" {
				t.Errorf("end-to-end headers: %v", got.Header)
			}
		})
	}
}

// A caller's own Accept wins over the manifest's default.
func TestManifestHeadersAreDefaults(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	e.do(t, "GET", "/c/keyed/x", s.Token, nil, map[string]string{"Accept": "text/plain"})
	if got := e.api.last(t).Header.Get("Accept"); got != "text/plain" {
		t.Fatalf("Accept %q", got)
	}
}

type errBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// Every refusal: its status, its JSON error, and the provider never hears of it.
func TestRefusals(t *testing.T) {
	e := newEnv(t, envOptions{maxRequest: 64, maxResponse: 1024})
	s := e.mint(t, e.user, "keyed")
	other := uuid.New()
	if err := e.creds.ConnectAPIKey(e.ctx, other, "keyed", "", map[string]string{"api_key": "others-key"}); err != nil {
		t.Fatal(err)
	}
	othersToken := e.mint(t, other, "keyed").Token
	free := e.mint(t, e.user, "free").Token

	// A token whose claims name another user, under the original signature.
	payload, sig, _ := strings.Cut(strings.TrimPrefix(s.Token, "wbcs1."), ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	var claims map[string]any
	_ = json.Unmarshal(raw, &claims)
	claims["sub"] = other.String()
	spliced, _ := json.Marshal(claims)
	otherUser := "wbcs1." + base64.RawURLEncoding.EncodeToString(spliced) + "." + sig
	// The other user's signature on this user's claims.
	_, othersSig, _ := strings.Cut(strings.TrimPrefix(othersToken, "wbcs1."), ".")
	borrowed := "wbcs1." + payload + "." + othersSig
	// A token for all integrations, made by flipping the scope.
	claims["sub"] = e.user.String()
	claims["int"] = []string{"keyed", "free", "other"}
	widened, _ := json.Marshal(claims)
	widenedTok := "wbcs1." + base64.RawURLEncoding.EncodeToString(widened) + "." + sig
	flipped := s.Token[:len(s.Token)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(s.Token, "AA")]

	cases := []struct {
		name, method, path, token string
		body                      io.Reader
		hdr                       map[string]string
		status                    int
		code                      string
	}{
		{"no token", "GET", "/c/keyed/user", "", nil, nil, 401, "invalid_token"},
		{"basic auth instead", "GET", "/c/keyed/user", "", nil, map[string]string{"Authorization": "Basic dTpw"}, 401, "invalid_token"},
		{"token in the query only", "GET", "/c/keyed/user?access_token=" + s.Token, "", nil, nil, 401, "invalid_token"},
		{"not a curl token", "GET", "/c/keyed/user", "wbk_someapikey", nil, nil, 401, "invalid_token"},
		{"forged signature", "GET", "/c/keyed/user", flipped, nil, nil, 401, "invalid_token"},
		{"claims of another user", "GET", "/c/keyed/user", otherUser, nil, nil, 401, "invalid_token"},
		{"another user's signature", "GET", "/c/keyed/user", borrowed, nil, nil, 401, "invalid_token"},
		{"widened scope", "GET", "/c/other/user", widenedTok, nil, nil, 401, "invalid_token"},
		{"token for another integration", "GET", "/c/keyed/user", free, nil, nil, 403, "forbidden_integration"},
		{"integration not in the token", "GET", "/c/other/user", s.Token, nil, nil, 403, "forbidden_integration"},
		{"unknown integration", "GET", "/c/nope/user", s.Token, nil, nil, 403, "forbidden_integration"},
		{"OPTIONS", "OPTIONS", "/c/keyed/user", s.Token, nil, nil, 405, "method_not_allowed"},
		{"TRACE", "TRACE", "/c/keyed/user", s.Token, nil, nil, 405, "method_not_allowed"},
		{"websocket upgrade", "GET", "/c/keyed/socket", s.Token, nil, map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"}, 400, "upgrade_refused"},
		{"dot dot", "GET", "/c/keyed/../admin", s.Token, nil, nil, 400, "bad_path"},
		{"dot dot at the end", "GET", "/c/keyed/a/..", s.Token, nil, nil, 400, "bad_path"},
		{"dot", "GET", "/c/keyed/a/./b", s.Token, nil, nil, 400, "bad_path"},
		{"encoded dot dot", "GET", "/c/keyed/%2e%2e/admin", s.Token, nil, nil, 400, "bad_path"},
		{"mixed-case encoded dot dot", "GET", "/c/keyed/%2E./admin", s.Token, nil, nil, 400, "bad_path"},
		{"dot dot behind an encoded slash", "GET", "/c/keyed/a%2f..%2fadmin", s.Token, nil, nil, 400, "bad_path"},
		{"double slash", "GET", "/c/keyed//evil.example/x", s.Token, nil, nil, 400, "bad_path"},
		{"double slash inside", "GET", "/c/keyed/a//b", s.Token, nil, nil, 400, "bad_path"},
		{"backslash", "GET", "/c/keyed/a%5c..%5cadmin", s.Token, nil, nil, 400, "bad_path"},
		{"double-encoded dot dot", "GET", "/c/keyed/%252e%252e/admin", s.Token, nil, nil, 400, "bad_path"},
		{"NUL", "GET", "/c/keyed/a%00b", s.Token, nil, nil, 400, "bad_path"},
		{"declared body over the cap", "POST", "/c/keyed/upload", s.Token, bytes.NewReader(make([]byte, 65)), nil, 413, "request_too_large"},
		{"streamed body over the cap", "POST", "/c/keyed/upload", s.Token, io.MultiReader(strings.NewReader(strings.Repeat("x", 40)), strings.NewReader(strings.Repeat("y", 40))), nil, 413, "request_too_large"},
		{"declared response over the cap", "GET", "/c/keyed/big", s.Token, nil, nil, 502, "response_too_large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.api.count()
			status, hdr, body := e.do(t, c.method, c.path, c.token, c.body, c.hdr)
			var eb errBody
			if err := json.Unmarshal(body, &eb); err != nil {
				t.Fatalf("status %d, body %q is not a JSON error", status, body)
			}
			if status != c.status || eb.Error != c.code || eb.Message == "" {
				t.Fatalf("got %d %+v, want %d %s", status, eb, c.status, c.code)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("Content-Type %q", hdr.Get("Content-Type"))
			}
			if status == 401 && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate")
			}
			switch c.code {
			case "response_too_large":
				// asked, but nothing relayed
			case "request_too_large":
				if c.body != nil && strings.HasPrefix(c.name, "declared") && e.api.count() != before {
					t.Errorf("the provider was asked")
				}
			default:
				if e.api.count() != before {
					t.Errorf("the provider received the refused request")
				}
			}
		})
	}
}

// An expired token is refused, whoever holds it.
func TestExpiredToken(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	if status, _, _ := e.do(t, "GET", "/c/keyed/x", s.Token, nil, nil); status != 200 {
		t.Fatalf("fresh token: %d", status)
	}
	e.clock.Advance(15*time.Minute + time.Second)
	status, _, body := e.do(t, "GET", "/c/keyed/x", s.Token, nil, nil)
	if status != 401 || !strings.Contains(string(body), "expired") {
		t.Fatalf("expired token: %d %s", status, body)
	}
}

// A user who disconnects after the mint: the token no longer reaches the provider.
func TestDisconnectedAfterMint(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	if err := e.creds.Disconnect(e.ctx, e.user, "keyed", ""); err != nil {
		t.Fatal(err)
	}
	before := e.api.count()
	status, _, body := e.do(t, "GET", "/c/keyed/x", s.Token, nil, nil)
	if status != 409 || !strings.Contains(string(body), "not_connected") || e.api.count() != before {
		t.Fatalf("after disconnect: %d %s", status, body)
	}
}

// Neither the Host header nor an absolute request URI can move the upstream: the request goes to
// the manifest's host.
func TestNoSSRFThroughHostOrAbsoluteURI(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	for _, line := range []string{
		"GET /c/keyed/probe HTTP/1.1\r\nHost: 169.254.169.254\r\n",
		"GET http://169.254.169.254/c/keyed/probe HTTP/1.1\r\nHost: 169.254.169.254\r\n",
		"GET /c/keyed/@169.254.169.254/probe HTTP/1.1\r\nHost: localhost\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%sAuthorization: Bearer %s\r\nConnection: close\r\n\r\n", line, s.Token)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		conn.Close()
		got := e.api.last(t)
		if resp.StatusCode != 200 || got.Host != strings.TrimPrefix(e.api.srv.URL, "http://") || !strings.HasPrefix(got.RequestURI, "/base/") {
			t.Errorf("%q: %d, provider got Host %q URI %q", line, resp.StatusCode, got.Host, got.RequestURI)
		}
	}
}

// Redirects are answered, never followed; a Location under the proxy base points back through the
// proxy, anything else to the absolute upstream URL, and nothing is sent to another origin.
func TestRedirectsAreNotFollowed(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	cases := []struct {
		name, path string
		status     int
		location   string
	}{
		{"same origin under the base", "/c/keyed/redirect-same", 302, e.srv.URL + "/c/keyed/next?page=2"},
		{"same origin outside the base", "/c/keyed/redirect-outside", 302, e.api.srv.URL + "/login"},
		{"another origin", "/c/keyed/redirect-away", 307, "https://elsewhere.example/steal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.api.count()
			status, hdr, _ := e.do(t, "GET", c.path, s.Token, nil, nil)
			if status != c.status || hdr.Get("Location") != c.location {
				t.Fatalf("got %d Location %q, want %d %q", status, hdr.Get("Location"), c.status, c.location)
			}
			if e.api.count() != before+1 {
				t.Fatalf("the provider got %d requests: the redirect was followed", e.api.count()-before)
			}
		})
	}
}

// Provider cookies and origin-wide policies never land on workbench's origin, and the body is
// sandboxed.
func TestResponseHeaders(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	status, hdr, body := e.do(t, "GET", "/c/keyed/cookies", s.Token, nil, nil)
	if status != 200 || !strings.Contains(string(body), "<script>") {
		t.Fatalf("%d %s", status, body)
	}
	for _, h := range []string{"Set-Cookie", "Strict-Transport-Security", "Clear-Site-Data"} {
		if hdr.Get(h) != "" {
			t.Errorf("relayed %s: %q", h, hdr.Get(h))
		}
	}
	if hdr.Get("Content-Security-Policy") != "sandbox" || hdr.Get("X-Content-Type-Options") != "nosniff" || hdr.Get("X-Provider") != "kept" {
		t.Errorf("headers %v", hdr)
	}
}

// Bodies stream both ways: the provider reads the first bytes of an upload before the client has
// sent the rest, and the client reads the first bytes of a download before the provider has
// written the rest. A proxy that buffered either would stall here until the timeout.
func TestBodiesStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")

	t.Run("upload", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close() // on failure, let the stalled request end
		done := make(chan string, 1)
		go func() {
			_, _, body := e.do(t, "POST", "/c/keyed/upload-stream", s.Token, pr, nil)
			done <- string(body)
		}()
		if _, err := pw.Write([]byte("first")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-e.api.gotFirstChunk:
		case <-time.After(10 * time.Second):
			t.Fatal("the provider did not get the first chunk before the body ended: the upload was buffered")
		}
		_, _ = pw.Write([]byte("-and-the-rest"))
		pw.Close()
		if got := <-done; got != "got 18 bytes" {
			t.Fatalf("provider answered %q", got)
		}
	})

	t.Run("download", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(e.ctx, "GET", e.srv.URL+"/c/keyed/download-stream", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first := make([]byte, 5)
		got := make(chan error, 1)
		go func() { _, err := io.ReadFull(resp.Body, first); got <- err }()
		select {
		case err := <-got:
			if err != nil || string(first) != "first" {
				t.Fatalf("first chunk %q: %v", first, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the client did not get the first chunk before the provider finished: the download was buffered")
		}
		e.api.respContinue <- struct{}{}
		rest, _ := io.ReadAll(resp.Body)
		if string(rest) != "-rest" {
			t.Fatalf("rest %q", rest)
		}
	})
}

// A response that grows past the cap while streaming is cut: the client sees a broken stream,
// never a short body passed off as complete.
func TestStreamedResponseOverTheCapIsCut(t *testing.T) {
	e := newEnv(t, envOptions{maxResponse: 1024})
	s := e.mint(t, e.user, "keyed")
	req, _ := http.NewRequestWithContext(e.ctx, "GET", e.srv.URL+"/c/keyed/big-stream", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	// The cut may land before the response head reached the client (the connection closes: Do fails) or
	// after it (the body ends early: the read fails). Either way the caller must never see a clean end.
	if err == nil {
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil {
			t.Fatalf("read %d bytes and a clean end, want a cut stream", len(b))
		}
		if len(b) > 1024 {
			t.Fatalf("relayed %d bytes past the 1024 cap", len(b))
		}
	}
	recs := events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, 1)
	if len(recs) != 1 || recs[0].ErrorCode != "RESPONSE_TOO_LARGE" {
		t.Fatalf("records %+v", recs)
	}
}

// An OAuth token about to expire is refreshed on the way through, and the provider gets the new
// one.
func TestRefreshesTheOAuthToken(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.connectAcme(t)
	s := e.mint(t, e.user, "acme")
	status, _, body := e.do(t, "GET", "/c/acme/me", s.Token, nil, nil)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	got := e.api.last(t)
	issued := e.oauth.Issued()
	if len(issued) != 2 || issued[1].Grant != "refresh_token" {
		t.Fatalf("issued %+v, want the code exchange's token and one refreshed", issued)
	}
	if got.RequestURI != "/base/acme/me" || got.Header.Get("Authorization") != "Bearer "+issued[1].Access {
		t.Fatalf("provider got %s with Authorization %q, want the refreshed %s", got.RequestURI, got.Header.Get("Authorization"), issued[1].Access)
	}
	if n := e.oauth.Refreshes(); n != 1 {
		t.Fatalf("%d refreshes, want 1", n)
	}
}

// Every request with a valid token is one event: who, what, how it ended, sizes and time, and no
// query value, body, header or token.
func TestRequestsAreAudited(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	e.do(t, "POST", "/c/keyed/items?secret=hunter2&page=3&page=4", s.Token, strings.NewReader(`{"body":"classified"}`), nil)
	e.do(t, "GET", "/c/keyed/../etc/passwd", s.Token, nil, nil)
	e.do(t, "GET", "/c/other/x", s.Token, nil, nil)
	e.do(t, "GET", "/c/keyed/x", "forged", nil, nil) // no valid token: nothing to attribute
	recs := events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, 3)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	byPath := map[string]curlsession.RequestProxied{}
	for _, r := range recs {
		byPath[r.Path] = r
		if r.SessionID != s.SessionID || r.UserID != e.user || r.RequestID == uuid.Nil || r.At.IsZero() {
			t.Errorf("record %+v", r)
		}
	}
	ok := byPath["/items"]
	if ok.Integration != "keyed" || ok.Method != "POST" || ok.Status != 200 || ok.ErrorCode != "" ||
		strings.Join(ok.QueryKeys, ",") != "page,secret" || ok.RequestBytes != 21 || ok.ResponseBytes == 0 || ok.ConnectionVersion == 0 {
		t.Errorf("forwarded record %+v", ok)
	}
	if r := byPath["/../etc/passwd"]; r.Status != 400 || r.ErrorCode != "BAD_PATH" {
		t.Errorf("traversal record %+v", r)
	}
	if r := byPath["/x"]; r.Integration != "other" || r.Status != 403 || r.ErrorCode != "FORBIDDEN_INTEGRATION" {
		t.Errorf("scope record %+v", r)
	}
	// The session's stream tells its whole story: the mint, then its requests: the forwarded one's
	// RequestForwarded before its outcome (same request id), each refusal's single record.
	stream, err := e.store.Load(e.ctx, curlsession.SessionStreamName(s.SessionID), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(stream) != 5 || stream[0].Type != curlsession.TypeSessionMinted {
		t.Fatalf("session stream holds %d events, first %q", len(stream), stream[0].Type)
	}
	forwardedAt, outcomeAt := -1, -1
	for i, env := range stream[1:] {
		if env.Metadata.Actor != e.user.String() || env.Metadata.CorrelationID != s.SessionID.String() {
			t.Errorf("request event %s %+v", env.Type, env.Metadata)
		}
		switch env.Type {
		case curlsession.TypeRequestForwarded:
			var f curlsession.RequestForwarded
			if err := json.Unmarshal(env.Data, &f); err != nil {
				t.Fatal(err)
			}
			if f.RequestID != ok.RequestID || f.Method != "POST" || f.Path != "/items" || strings.Join(f.QueryKeys, ",") != "page,secret" || f.ConnectionVersion != ok.ConnectionVersion {
				t.Errorf("forwarded %+v, outcome %+v", f, ok)
			}
			forwardedAt = i
		case curlsession.TypeRequestProxied:
			if env.ID == ok.RequestID {
				outcomeAt = i
			}
		default:
			t.Errorf("request event of type %s", env.Type)
		}
	}
	if forwardedAt < 0 || outcomeAt < forwardedAt {
		t.Errorf("RequestForwarded at %d, its outcome at %d", forwardedAt, outcomeAt)
	}
	log := rawLog(t, e)
	for _, secret := range []string{"hunter2", "classified", apiKey, s.Token[6:30]} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}

// A resolved credential is reused for a short while only: a disconnect reaches a proxy that has
// just used the credential within CredentialTTL (2s by default), and then the token stops working.
func TestDisconnectReachesAWarmProxy(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	if status, _, _ := e.do(t, "GET", "/c/keyed/x", s.Token, nil, nil); status != 200 {
		t.Fatalf("before: %d", status)
	}
	if err := e.creds.Disconnect(e.ctx, e.user, "keyed", ""); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Second)
	before := e.api.count()
	status, _, body := e.do(t, "GET", "/c/keyed/x", s.Token, nil, nil)
	if status != 409 || e.api.count() != before {
		t.Fatalf("after the TTL: %d %s", status, body)
	}
}

// Concurrent requests of several sessions: each answered, each recorded once.
func TestConcurrentRequestsAreEachRecorded(t *testing.T) {
	e := newEnv(t, envOptions{})
	tokens := []string{e.mint(t, e.user, "keyed").Token, e.mint(t, e.user, "keyed", "free").Token}
	const n = 60
	errs := make(chan error, n)
	for i := range n {
		go func() {
			req, _ := http.NewRequestWithContext(e.ctx, "POST", e.srv.URL+"/c/keyed/items/"+strconv.Itoa(i), strings.NewReader("payload"))
			req.Header.Set("Authorization", "Bearer "+tokens[i%2])
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	recs := events[curlsession.RequestProxied](t, e, curlsession.TypeRequestProxied, n)
	paths := map[string]int{}
	for _, r := range recs {
		paths[r.Path]++
	}
	if len(recs) != n || len(paths) != n {
		t.Fatalf("%d records over %d paths, want %d each", len(recs), len(paths), n)
	}
}
