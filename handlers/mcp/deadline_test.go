package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// slowTools answers every call after a pause, unless the request's context ends first.
type slowTools struct {
	fakeTools
	pause time.Duration
}

func (s slowTools) CallTool(ctx context.Context, p Principal, name string, args json.RawMessage) (CallResult, error) {
	select {
	case <-time.After(s.pause):
	case <-ctx.Done():
		return CallResult{}, ctx.Err()
	}
	return s.fakeTools.CallTool(ctx, p, name, args)
}

// A tool call may take longer than the server's read and write deadlines: once the caller is
// authenticated and the body read, the endpoint lifts them (internal/httpserve explains both).
func TestToolCallOutlivesTheServerDeadlines(t *testing.T) {
	const deadline = 300 * time.Millisecond
	srv, err := New(Options{
		Auth: AuthenticatorFunc(func(r *http.Request) (Principal, error) {
			if r.Header.Get("Authorization") == "Bearer key-ada" {
				return Principal{UserID: "user-ada", Method: "api_key", ClientID: "k1"}, nil
			}
			return Principal{}, errors.New("no")
		}),
		Tools:      slowTools{pause: 3 * deadline},
		SessionKey: bytes.Repeat([]byte("k"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ReadTimeout, ts.Config.WriteTimeout = deadline, deadline
	ts.Start()
	defer ts.Close()

	sid := initSession(t, ts.URL, "key-ada")
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"n":1}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer key-ada")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a call longer than the deadlines was cut: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || out.Result.IsError ||
		len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, `"n":1`) {
		t.Fatalf("status %d, %+v, %v: want the tool's answer", resp.StatusCode, out, err)
	}
}
