package proxy_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
)

// The server's read and write deadlines do not cut a proxied stream: once the token is checked the
// proxy lifts them (internal/httpserve), so an upload or a download may take as long as it needs.
func TestStreamsOutliveTheServerDeadlines(t *testing.T) {
	const deadline = 300 * time.Millisecond
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	r := chi.NewRouter()
	r.Handle("/c/*", e.proxy)
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ReadTimeout, srv.Config.WriteTimeout = deadline, deadline
	srv.Start()
	defer srv.Close()

	t.Run("download", func(t *testing.T) {
		req, _ := http.NewRequestWithContext(e.ctx, "GET", srv.URL+"/c/keyed/download-stream", nil)
		req.Header.Set("Authorization", "Bearer "+s.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		first := make([]byte, 5)
		if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "first" {
			t.Fatalf("first chunk %q: %v", first, err)
		}
		time.Sleep(3 * deadline) // both deadlines have passed
		e.api.respContinue <- struct{}{}
		rest, err := io.ReadAll(resp.Body)
		if err != nil || string(rest) != "-rest" {
			t.Fatalf("after the deadlines: %q, %v; want the rest of the stream", rest, err)
		}
	})

	t.Run("upload", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		type answer struct {
			status int
			body   string
		}
		done := make(chan answer, 1)
		go func() {
			req, _ := http.NewRequestWithContext(e.ctx, "POST", srv.URL+"/c/keyed/upload-stream", pr)
			req.Header.Set("Authorization", "Bearer "+s.Token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- answer{body: err.Error()}
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			done <- answer{resp.StatusCode, string(b)}
		}()
		if _, err := pw.Write([]byte("first")); err != nil {
			t.Fatal(err)
		}
		select {
		case <-e.api.gotFirstChunk:
		case <-time.After(10 * time.Second):
			t.Fatal("the provider never got the first chunk")
		}
		time.Sleep(3 * deadline)
		_, _ = pw.Write([]byte("-and-the-rest"))
		pw.Close()
		if got := <-done; got.status != http.StatusOK || got.body != "got 18 bytes" {
			t.Fatalf("after the deadlines the provider answered %d %q, want the whole upload", got.status, got.body)
		}
	})
}
