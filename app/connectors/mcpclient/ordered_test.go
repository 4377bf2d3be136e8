package mcpclient

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// A response that follows a progress notification in the same chunk is handed out only after the
// notification's handler has run; an event that follows no notification is not held.
func TestOrderedHoldsTheResponseForTheHandler(t *testing.T) {
	body := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n"
	b := newBarrier()
	ctx := context.WithValue(context.Background(), barrierKey{}, b)
	o := &ordered{rc: io.NopCloser(strings.NewReader(body)), b: b}
	var handled atomic.Bool
	buf := make([]byte, 4096)
	n, err := o.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "notifications/progress") {
		t.Fatalf("first read: %q %v", buf[:n], err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond) // the SDK's handler goroutine, late
		handled.Store(true)
		handledNotification(ctx)
	}()
	n, err = o.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"result"`) {
		t.Fatalf("second read: %q %v", buf[:n], err)
	}
	if !handled.Load() {
		t.Fatal("the response was handed out before the notification before it was handled")
	}
	if _, err := o.Read(buf); err != io.EOF {
		t.Fatalf("after the last event: %v, want EOF", err)
	}
}

func TestNotificationIsReadFromTheData(t *testing.T) {
	for ev, want := range map[string]bool{
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n": true,
		"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"text\":\"notifications/progress\"}}\n\n":                           false,
		"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"notifications/progress\"}\n\n":                                      false,
		": keep-alive\n\n": false,
	} {
		if got := notification([]byte(ev)); got != want {
			t.Errorf("notification(%q) = %v, want %v", ev, got, want)
		}
	}
}

// A lasting stream's events are capped one by one: many small events pass, one over the cap fails.
func TestEventCappedCapsEachEvent(t *testing.T) {
	var hit atomic.Int64
	small := strings.Repeat("event: message\ndata: {\"x\":1}\n\n", 1000) // 27 KB in all, 27 bytes an event
	b := &eventCapped{rc: io.NopCloser(strings.NewReader(small)), limit: 64, hit: &hit}
	if n, err := io.Copy(io.Discard, b); err != nil || n != int64(len(small)) {
		t.Fatalf("small events: %d bytes, %v", n, err)
	}
	big := "data: " + strings.Repeat("x", 100) + "\n\n"
	b = &eventCapped{rc: io.NopCloser(strings.NewReader(big)), limit: 64, hit: &hit}
	if _, err := io.Copy(io.Discard, b); err == nil || hit.Load() != 64 {
		t.Fatalf("an event over the cap: %v (hit %d)", err, hit.Load())
	}
}

// Events arriving a byte at a time, and one larger than the buffer, come out whole and in order.
func TestOrderedReassemblesEvents(t *testing.T) {
	big := strings.Repeat("y", 50<<10)
	body := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"a\"}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"" + big + "\"}}\n\n"
	b := newBarrier()
	go func() { // the handler of the one notification
		for {
			b.mu.Lock()
			passed := b.passed
			b.mu.Unlock()
			if passed == 1 {
				handledNotification(context.WithValue(context.Background(), barrierKey{}, b))
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	got, err := io.ReadAll(&ordered{rc: io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), b: b})
	if err != nil || string(got) != body {
		t.Fatalf("read %d bytes (%v), want the %d sent", len(got), err, len(body))
	}
}
