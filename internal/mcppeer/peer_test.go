package mcppeer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type log []string

func (l *log) Progress(progress, total float64, message string) {
	*l = append(*l, fmt.Sprintf("%g/%g %s", progress, total, message))
}

// Several executions' progress merges into one increasing sequence; each message names its
// execution, a report that does not increase is dropped, and a long message is cut.
func TestReportMergesExecutions(t *testing.T) {
	var got log
	ctx := WithSink(context.Background(), &got)
	a, b := Execution(ctx, 0, 2), Execution(ctx, 1, 2)
	Report(a, 1, 2, "a1")
	Report(b, 5, 10, "b5")
	Report(a, 1, 2, "a1 again")
	Report(a, 2, 2, strings.Repeat("x", 2000))
	want := []string{"1/0 execution 0: a1 (1/2)", "6/12 execution 1: b5 (5/10)"}
	if len(got) != 3 || fmt.Sprint(got[:2]) != fmt.Sprint(want) || !strings.HasPrefix(got[2], "7/12 execution 0: xxx") || len(got[2]) > 1100 {
		t.Fatalf("progress %q", got)
	}
	Report(context.Background(), 1, 1, "nowhere") // no sink: nothing to do
}

// Ask relays only what the client declared, tells the observer, and lets it withhold the answer.
func TestAskNeedsTheCapability(t *testing.T) {
	c := clientFunc(func(method string) (json.RawMessage, error) { return json.RawMessage(`{"action":"accept"}`), nil })
	ctx := WithClient(context.Background(), Elicitation, c)
	if _, err := Ask(ctx, "sampling/createMessage", json.RawMessage(`{}`)); !errors.Is(err, ErrNotDeclared) {
		t.Fatalf("sampling: %v", err)
	}
	if _, err := Ask(ctx, "elicitation/create", json.RawMessage(`{"mode":"url","url":"https://x"}`)); !errors.Is(err, ErrNotDeclared) {
		t.Fatalf("url elicitation: %v", err)
	}
	var told []string
	obs := Observe(ctx, func(method string, _, result json.RawMessage, _ error) error {
		told = append(told, method+" "+string(result))
		return errors.New("no record")
	})
	if res, err := Ask(obs, "elicitation/create", json.RawMessage(`{"message":"q"}`)); err == nil || res != nil || fmt.Sprint(told) != `[elicitation/create {"action":"accept"}]` {
		t.Fatalf("observed: %s, %v, %q", res, err, told)
	}
}

type clientFunc func(method string) (json.RawMessage, error)

func (f clientFunc) Request(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	return f(method)
}
