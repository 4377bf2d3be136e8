package mcpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type noArgs struct{}

func serve(t *testing.T, s *mcp.Server, check func(*http.Request) int) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil {
			if st := check(r); st != 0 {
				http.Error(w, "no", st)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func addTools(s *mcp.Server, n int, desc string) {
	for i := range n {
		mcp.AddTool(s, &mcp.Tool{Name: "t" + strconv.Itoa(i), Description: desc}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
}

// A listing of more than 200 tools, or of more than 1 MB, is an error.
func TestListingLimits(t *testing.T) {
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	many := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, nil)
	addTools(many, MaxListedTools+1, "x")
	if _, err := p.ListTools(context.Background(), uuid.New(), Endpoint{URL: serve(t, many, nil)}); err == nil || !strings.Contains(err.Error(), "more than 200 tools") {
		t.Fatalf("201 tools: %v", err)
	}
	big := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	addTools(big, 20, strings.Repeat("d", MaxListingBytes/16))
	if _, err := p.ListTools(context.Background(), uuid.New(), Endpoint{URL: serve(t, big, nil)}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("over 1 MB: %v", err)
	}
	ok := mcp.NewServer(&mcp.Implementation{Name: "ok", Version: "1"}, nil)
	addTools(ok, MaxListedTools, "x")
	if ts, err := p.ListTools(context.Background(), uuid.New(), Endpoint{URL: serve(t, ok, nil)}); err != nil || len(ts) != MaxListedTools {
		t.Fatalf("200 tools: %d, %v", len(ts), err)
	}
}

// The credential header reaches the endpoint; a 401 is Rejected; a changed credential opens a new
// session for the same login.
func TestSessionCredentialsAndRejection(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	addTools(s, 1, "x")
	var good atomic.Value
	good.Store("Bearer good-token")
	u := serve(t, s, func(r *http.Request) int {
		if r.Header.Get("Authorization") != good.Load().(string) {
			return http.StatusUnauthorized
		}
		return 0
	})
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	login := uuid.New()
	if _, err := p.ListTools(context.Background(), login, Endpoint{URL: u, HeaderName: "Authorization", HeaderValue: "Bearer good-token"}); err != nil {
		t.Fatal(err)
	}
	_, err := p.ListTools(context.Background(), login, Endpoint{URL: u, HeaderName: "Authorization", HeaderValue: "Bearer other"})
	if !Rejected(err) {
		t.Fatalf("a refused credential: %v", err)
	}
	good.Store("Bearer other")
	if _, err := p.ListTools(context.Background(), login, Endpoint{URL: u, HeaderName: "Authorization", HeaderValue: "Bearer other"}); err != nil {
		t.Fatalf("after the provider accepts the new credential: %v", err)
	}
}

// An answer over MaxResponseBytes fails the call, read no further than the cap, and the call is not
// sent again (it reached the remote); an answer within the cap on the same pool goes through.
func TestCallAnswerOverTheCap(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	var calls atomic.Int32
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls.Add(1)
		var a struct {
			Size int `json:"size"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", a.Size)}}}, nil
	})
	p := New(Options{AllowLoopback: true, MaxResponseBytes: 256 << 10})
	defer p.Close()
	ep, login := Endpoint{URL: serve(t, s, nil)}, uuid.New()
	_, err := p.CallTool(context.Background(), login, ep, "big", json.RawMessage(`{"size":1048576}`))
	if err == nil || !strings.Contains(err.Error(), "over 262144 bytes") {
		t.Fatalf("a 1 MiB answer under a 256 KiB cap: %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the tool ran %d times, want 1", n)
	}
	res, err := p.CallTool(context.Background(), login, ep, "big", json.RawMessage(`{"size":1000}`))
	if err != nil || !strings.Contains(string(res), strings.Repeat("x", 1000)) {
		t.Fatalf("a 1 KB answer: %.100s, %v", res, err)
	}
}
