// Package mcppeer carries, in a context, the agent's MCP client as one tools/call through Workbench
// sees it: where a remote's progress goes (notifications/progress on the call's response stream,
// MCP 2025-11-25 basic/utilities/progress). handlers/mcp installs a Sink per tools/call that carries a
// progressToken, app/executions labels the context with each execution's index, and
// app/connectors/mcpclient reports a remote's progress through it.
package mcppeer

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Sink receives the progress of one tools/call, already merged over its executions: progress
// increases with every call, total is 0 when unknown. The calls are serialised and come in order.
type Sink interface {
	Progress(progress, total float64, message string)
}

// maxMessage bounds a progress message passed on (bytes).
const maxMessage = 1000

type callKey struct{}
type executionKey struct{}

// call merges the progress of the executions of one tools/call into one increasing sequence.
type call struct {
	sink Sink
	mu   sync.Mutex
	// latest and totals are each execution's last progress and total, by index.
	latest, totals map[int]float64
	n              int
}

// WithSink returns ctx carrying sink for one tools/call (Execution tells it how many executions).
func WithSink(ctx context.Context, sink Sink) context.Context {
	if sink == nil {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &call{sink: sink, latest: map[int]float64{}, totals: map[int]float64{}, n: 1})
}

// Execution returns ctx labelled as execution i of n.
func Execution(ctx context.Context, i, n int) context.Context {
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil {
		return ctx
	}
	c.mu.Lock()
	if n > c.n {
		c.n = n
	}
	c.mu.Unlock()
	return context.WithValue(ctx, executionKey{}, i)
}

// Reporting reports whether progress reported under ctx goes anywhere.
func Reporting(ctx context.Context) bool {
	_, ok := ctx.Value(callKey{}).(*call)
	return ok
}

// Report sends the progress of the execution ctx is labelled with (0 when none) to the call's sink:
// the message is prefixed "execution I: ". A report that does not increase the execution's progress
// is dropped (the protocol requires progress to increase). With one execution, progress and total
// pass as the remote sent them; with several, progress is the sum of every execution's latest
// progress and total the sum of their totals once each has given one (0 before).
func Report(ctx context.Context, progress, total float64, message string) {
	c, _ := ctx.Value(callKey{}).(*call)
	if c == nil {
		return
	}
	i, _ := ctx.Value(executionKey{}).(int)
	if r := redaction(ctx); r.Text != nil {
		message = r.Text(message)
	}
	if len(message) > maxMessage {
		message = strings.ToValidUTF8(message[:maxMessage], "") + "…"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, seen := c.latest[i]; seen && progress <= last {
		return
	}
	c.latest[i] = progress
	if total > 0 {
		c.totals[i] = total
	}
	msg := fmt.Sprintf("execution %d", i)
	if message != "" {
		msg += ": " + message
	}
	if c.n <= 1 {
		c.sink.Progress(progress, total, msg)
		return
	}
	var sum, sumTotal float64
	for _, p := range c.latest {
		sum += p
	}
	for _, t := range c.totals {
		sumTotal += t
	}
	if len(c.totals) < c.n {
		sumTotal = 0
	}
	if total > 0 {
		msg = fmt.Sprintf("%s (%g/%g)", msg, progress, total)
	} else {
		msg = fmt.Sprintf("%s (%g)", msg, progress)
	}
	c.sink.Progress(sum, sumTotal, msg)
}
