package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// The SDK's client hands a remote's notifications to their handlers on a goroutine of their own, and
// a response to its caller at once: a remote's last progress or log message, sent just before its
// result on the same stream, would often reach onProgress or onLog after the call has returned, when
// nothing waits for it any more. So the body of each SSE response on a session is read through
// ordered: before it hands the SDK the bytes of any event after a progress or log notification, it
// waits until the handlers have handled every such notification it passed on (at most
// orderedWait), so that what a remote sent before its result reaches the agent before the result.

// orderedWait bounds the wait for the handlers: a notification the SDK dropped unhandled delays the
// stream by this much once.
const orderedWait = 2 * time.Second

// barrier counts the notifications passed to the SDK and those its handlers have handled.
type barrier struct {
	mu              sync.Mutex
	passed, handled int64
	changed         chan struct{} // closed and replaced at each handled notification
}

func newBarrier() *barrier { return &barrier{changed: make(chan struct{})} }

type barrierKey struct{}

// handledNotification tells the session's barrier (carried by the handler's context: the session's
// connection was opened under it) that one notification was handled.
func handledNotification(ctx context.Context) {
	b, _ := ctx.Value(barrierKey{}).(*barrier)
	if b == nil {
		return
	}
	b.mu.Lock()
	b.handled++
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

func (b *barrier) pass() {
	b.mu.Lock()
	b.passed++
	b.mu.Unlock()
}

// wait returns once every passed notification was handled, or after orderedWait.
func (b *barrier) wait() {
	deadline := time.NewTimer(orderedWait)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		if b.handled >= b.passed {
			b.mu.Unlock()
			return
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

// ordered is an SSE response body handed to the SDK one event at a time.
type ordered struct {
	rc      io.ReadCloser
	b       *barrier
	buf     []byte // read from rc, not yet handed out
	store   []byte // buf's backing array, reused once buf is emptied
	scanned int    // how much of buf is known to hold no event end
	out     []byte // the current event's bytes, being handed out
	pending bool   // a notification was passed since the last wait
	err     error
}

func (o *ordered) Read(q []byte) (int, error) {
	for len(o.out) == 0 {
		if _, i := eventEnd(o.buf, o.scanned); i > 0 {
			ev := o.buf[:i]
			o.buf, o.scanned = o.buf[i:], 0
			if notification(ev) {
				o.b.pass()
				o.pending = true
			} else if o.pending {
				o.b.wait()
				o.pending = false
			}
			o.out = ev
			break
		}
		if o.scanned = len(o.buf) - 2; o.scanned < 0 { // a blank line may straddle the next read
			o.scanned = 0
		}
		if o.err != nil {
			if len(o.buf) > 0 {
				o.out, o.buf = o.buf, nil
				break
			}
			return 0, o.err
		}
		if len(o.buf) == 0 {
			o.buf = o.store[:0] // nothing of the old bytes is referenced any more
		}
		if cap(o.buf)-len(o.buf) < 512 {
			grown := make([]byte, len(o.buf), 2*len(o.buf)+2<<10)
			copy(grown, o.buf)
			o.buf, o.store = grown, grown
		}
		n, err := o.rc.Read(o.buf[len(o.buf):cap(o.buf)])
		o.buf = o.buf[:len(o.buf)+n]
		o.err = err
	}
	n := copy(q, o.out)
	o.out = o.out[n:]
	return n, nil
}

func (o *ordered) Close() error { return o.rc.Close() }

// notification reports whether an SSE event carries a progress or log notification, the ones the
// pool's handlers pass on.
func notification(ev []byte) bool {
	if !bytes.Contains(ev, []byte("notifications/progress")) && !bytes.Contains(ev, []byte("notifications/message")) {
		return false
	}
	var data []byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			data = append(data, '\n')
		}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.ID == nil && (m.Method == "notifications/progress" || m.Method == "notifications/message")
}
