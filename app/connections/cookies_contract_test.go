package connections_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/plugins"
)

// The shipped cookie integration (plugins/examples/reddit-web) called through the runtime with a
// captured bundle: every request reaches https://www.reddit.com with exactly the bundle's cookies of
// reddit.com in its Cookie header (the Secure ones too, since the request is https), the path and
// query Reddit's website JSON documents (append .json to a page; raw_json=1 leaves text unescaped),
// and the answer is shaped as the manifest says.
func TestRedditWebContract(t *testing.T) {
	type seen struct {
		host, method, path, query, cookie, accept string
	}
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, seen{r.Host, r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Cookie"), r.Header.Get("Accept")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/me.json":
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "t2", "data": map[string]any{
				"name": "spez", "link_karma": 10, "comment_karma": 20, "total_karma": 30, "created_utc": 1118030400.0,
				"has_mail": false, "inbox_count": 0, "pref_nightmode": true}})
		case "/r/golang/hot.json":
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Listing", "data": map[string]any{"after": "t3_b", "children": []any{
				map[string]any{"kind": "t3", "data": map[string]any{"name": "t3_a", "title": "Go 1.26", "author": "gopher", "score": 5,
					"num_comments": 2, "permalink": "/r/golang/comments/a/go_126/", "created_utc": 1.7e9, "thumbnail": "self"}},
			}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	addr := srv.Listener.Addr().String()
	transport := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "example.com"},
	}
	t.Cleanup(transport.CloseIdleConnections)

	e := newEnvWith(t, "body", envOptions{extra: func(dir string, _ *provider) {
		from := filepath.Join("..", "..", "plugins", "examples", "reddit-web")
		to := filepath.Join(dir, "reddit-web")
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.json", "tools.json", "logo.svg"} {
			b, err := os.ReadFile(filepath.Join(from, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}})
	n := e.node(true)
	user := uuid.New()
	exp := time.Now().Add(24 * time.Hour)
	if _, err := n.svc.ConnectCookies(e.ctx, user, "reddit-web", "", []connections.Cookie{
		{Name: "reddit_session", Value: "rs-123", Domain: ".reddit.com", Path: "/", Expires: exp, Secure: true, HTTPOnly: true},
		{Name: "token_v2", Value: "tv-456", Domain: ".reddit.com", Path: "/", Expires: exp, Secure: true},
		{Name: "loid", Value: "l-789", Domain: "www.reddit.com", Path: "/", Expires: exp},
		{Name: "other", Value: "x", Domain: "redditstatic.com", Path: "/", Expires: exp},
	}); err != nil {
		t.Fatal(err)
	}
	in, _ := e.catalog.Integration("reddit-web")
	acc, err := n.svc.Access(e.ctx, user, in, "")
	if err != nil {
		t.Fatal(err)
	}
	const cookie = "reddit_session=rs-123; token_v2=tv-456; loid=l-789" // the stored order: by domain, path, name
	for _, tc := range []struct {
		tool, args string
		want       seen
		result     string
	}{
		{tool: "reddit_web_me", args: `{}`,
			want:   seen{"www.reddit.com", "GET", "/api/me.json", "", cookie, "application/json"},
			result: `{"name":"spez","link_karma":10,"comment_karma":20,"total_karma":30,"created_utc":1118030400,"has_mail":false,"inbox_count":0}`},
		{tool: "reddit_web_list_posts", args: `{"subreddit":"golang"}`,
			want: seen{"www.reddit.com", "GET", "/r/golang/hot.json", "limit=25&raw_json=1", cookie, "application/json"},
			result: `{"items":[{"data":{"name":"t3_a","title":"Go 1.26","author":"gopher","score":5,"num_comments":2,
				"permalink":"/r/golang/comments/a/go_126/","created_utc":1700000000}}],"next_cursor":"t3_b"}`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			tool, ok := e.catalog.Tool(tc.tool)
			if !ok {
				t.Fatalf("no tool %s", tc.tool)
			}
			args, err := plugins.ValidateArgs(tool, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			rc := plugins.NewContext(in, plugins.ContextOptions{UserID: user.String(), Injector: acc.Injector, Transport: transport})
			out, err := e.catalog.Execute(e.ctx, tool, rc, args)
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			last := got[len(got)-1]
			mu.Unlock()
			if diff := cmp.Diff(tc.want, last, cmp.AllowUnexported(seen{})); diff != "" {
				t.Fatalf("request (-want +got):\n%s", diff)
			}
			var gotJSON, wantJSON any
			_ = json.Unmarshal(out, &gotJSON)
			if err := json.Unmarshal([]byte(tc.result), &wantJSON); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantJSON, gotJSON); diff != "" {
				t.Fatalf("result (-want +got):\n%s", diff)
			}
		})
	}
}
