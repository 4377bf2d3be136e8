package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/mcppeer"
)

// sinkFunc is an mcppeer.Sink.
type sinkFunc func(progress, total float64, message string)

func (f sinkFunc) Progress(progress, total float64, message string) { f(progress, total, message) }

// A remote's notifications/progress for a call reach the sink of the call's context, in order, with
// the execution's index; a call with no sink sends no progressToken.
func TestCallToolForwardsProgress(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "progress", Version: "1"}, nil)
	seen := make(chan string, 10)
	tokens := make(chan any, 2)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.GetProgressToken()
		tokens <- tok
		if tok != nil {
			for i := 1; i <= 3; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)}); err != nil {
					return nil, err
				}
			}
			// Answer only once the client has passed all three on: the test is then exact.
			for range 3 {
				select {
				case <-seen:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: serve(t, s, nil)}
	login := uuid.New()

	var got []string
	ctx := mcppeer.WithSink(context.Background(), sinkFunc(func(progress, total float64, message string) {
		got = append(got, fmt.Sprintf("%g/%g %s", progress, total, message))
		seen <- message
	}))
	ctx = mcppeer.Execution(ctx, 0, 1)
	if _, err := p.CallTool(ctx, login, ep, "slow", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"1/3 execution 0: step 1", "2/3 execution 0: step 2", "3/3 execution 0: step 3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress = %q, want %q", got, want)
	}
	if tok := <-tokens; tok == nil {
		t.Fatal("the call with a sink sent no progressToken")
	}
	if _, err := p.CallTool(context.Background(), login, ep, "slow", nil); err != nil {
		t.Fatal(err)
	}
	if tok := <-tokens; tok != nil {
		t.Fatalf("a call with no sink sent progressToken %v", tok)
	}
}

// Cancelling a call's context sends the remote notifications/cancelled (its handler's context ends)
// and keeps the session: the next call reuses it.
func TestCallToolCancelReachesRemote(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "cancel", Version: "1"}, nil)
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	sessions := make(chan string, 2)
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sessions <- req.Session.ID()
		started <- struct{}{}
		select {
		case <-ctx.Done():
			cancelled <- context.Cause(ctx)
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			cancelled <- errors.New("not cancelled within a minute")
			return nil, errors.New("not cancelled")
		}
	})
	s.AddTool(&mcp.Tool{Name: "quick", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		sessions <- req.Session.ID()
		return &mcp.CallToolResult{}, nil
	})
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: serve(t, s, nil)}
	login := uuid.New()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := p.CallTool(ctx, login, ep, "wait", nil)
		errc <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the remote tool did not start within 30s")
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the remote handler ended by %v, want its cancellation", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the remote saw no notifications/cancelled within 30s")
	}
	if _, err := p.CallTool(context.Background(), login, ep, "quick", nil); err != nil {
		t.Fatal(err)
	}
	if a, b := <-sessions, <-sessions; a != b {
		t.Fatalf("the call after a cancellation ran on session %s, not the same session %s", b, a)
	}
}
