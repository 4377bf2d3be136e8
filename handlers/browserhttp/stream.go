package browserhttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/internal/httpserve"
)

// Screencast settings: JPEG frames of at most the session's window size.
const (
	frameQuality   = 60
	frameMaxWidth  = 1280
	frameMaxHeight = 800
)

// frame is one screencast frame as the stream sends it: the JPEG, base64, and the CSS size of the
// viewport it shows (input coordinates are in that space).
type frame struct {
	Data   string  `json:"data"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// state is the session's page, whether it is loading, and who drives it.
type state struct {
	URL     string `json:"url"`
	Loading bool   `json:"loading"`
	Human   bool   `json:"human"`
}

// stream is the SSE stream of the user's browser: "frame" events (frame), "state" events (state)
// when the page's URL or control changes, and a comment every Keepalive. Opening it hands control
// to the human; when the user's last stream closes, control goes back to the agent.
func (h *routes) stream(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		handlers.WriteJSON(w, http.StatusInternalServerError, handlers.ErrorBody{Error: "internal", Message: "streaming is not supported here"})
		return
	}
	s, ok := h.acquire(w, r, user, http.StatusConflict)
	if !ok {
		return
	}
	defer s.Release()
	ctx := r.Context()
	page, err := s.Page(ctx)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	if err := h.Browser.HandOver(ctx, s, md(user)); err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	h.openStream(user)
	defer func() {
		if h.closeStream(user) > 0 {
			return
		}
		dctx, cancel := detached(r)
		defer cancel()
		if err := h.Browser.TakeBack(dctx, s, md(user)); err != nil {
			h.Logger.WarnContext(dctx, "live view: give control back", "err", err)
		}
	}()

	frames := make(chan frame, 1)
	// The page's navigation state, set by CDP events and read by the loop below when signalled. The
	// events are not all there is: a page read before it had committed its first URL (a browser just
	// started answers "" for a moment) may never send one, so the loop also reads the page's URL every
	// poll (syncURL). navGen counts the events' changes, so that a URL read before an event landed
	// does not overwrite what the event said.
	var navMu sync.Mutex
	nav := state{}
	var navGen uint64
	navChanged := make(chan struct{}, 1)
	signal := func() {
		select {
		case navChanged <- struct{}{}:
		default:
		}
	}
	setNav := func(f func(*state)) {
		navMu.Lock()
		f(&nav)
		navGen++
		navMu.Unlock()
		signal()
	}
	syncURL := func() {
		navMu.Lock()
		gen := navGen
		navMu.Unlock()
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		info, err := page.Context(ictx).Info()
		cancel()
		if err != nil || info.URL == "" {
			return
		}
		navMu.Lock()
		changed := navGen == gen && nav.URL != info.URL
		if changed {
			nav.URL = info.URL
		}
		navMu.Unlock()
		if changed {
			signal()
		}
	}
	// The CDP subscription lives as long as this stream, which may end before the request's context
	// does (the server shutting down).
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	p := page.Context(sctx)
	wait := p.EachEvent(func(e *proto.PageScreencastFrame) {
		// Acknowledge at once: Chromium sends the next frame only after this one is taken. A frame the
		// client has not read yet is replaced by the newer one.
		_ = proto.PageScreencastFrameAck{SessionID: e.SessionID}.Call(p)
		f := frame{Data: base64.StdEncoding.EncodeToString(e.Data)}
		if e.Metadata != nil {
			f.Width, f.Height = e.Metadata.DeviceWidth, e.Metadata.DeviceHeight
		}
		select {
		case <-frames:
		default:
		}
		frames <- f
	}, func(e *proto.PageFrameNavigated) {
		if e.Frame != nil && e.Frame.ParentID == "" {
			// A page the history restores from the back/forward cache is loaded already: no load
			// event follows.
			loading := e.Type != proto.PageNavigationTypeBackForwardCacheRestore
			setNav(func(st *state) { st.URL, st.Loading = e.Frame.URL+e.Frame.URLFragment, loading })
		}
	}, func(e *proto.PageNavigatedWithinDocument) {
		// history.pushState, a fragment: the URL changes, nothing loads.
		if e.FrameID == page.FrameID {
			setNav(func(st *state) { st.URL = e.URL })
		}
	}, func(*proto.PageLoadEventFired) {
		setNav(func(st *state) { st.Loading = false })
	})
	_ = proto.PageEnable{}.Call(p)
	// Read after subscribing, so that a navigation is either in this or in an event.
	syncURL()
	if err := (proto.PageStartScreencast{Format: proto.PageStartScreencastFormatJpeg, Quality: ptr(frameQuality),
		MaxWidth: ptr(frameMaxWidth), MaxHeight: ptr(frameMaxHeight)}).Call(p); err != nil {
		handlers.WriteError(w, r, h.Logger, fmt.Errorf("start the screencast: %w", err))
		return
	}
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	defer func() {
		// Stopped with a context of its own: the request's may already be gone (the client hung up).
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = proto.PageStopScreencast{}.Call(page.Context(stopCtx))
		cancel()
		stop()
		<-done
	}()

	httpserve.LiftDeadlines(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	send := func(event string, v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	navMu.Lock()
	cur := nav
	navMu.Unlock()
	cur.Human = s.HumanInControl()
	if !send("state", cur) {
		return
	}
	keepalive := time.NewTicker(h.Keepalive)
	defer keepalive.Stop()
	poll := time.NewTicker(500 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.Done:
			return
		case <-done:
			// The page went away (closed, crashed, the session stopped): the client reconnects.
			return
		case f := <-frames:
			if !send("frame", f) {
				return
			}
		case <-navChanged:
			navMu.Lock()
			next := nav
			navMu.Unlock()
			next.Human = cur.Human
			if next != cur {
				cur = next
				if !send("state", cur) {
					return
				}
			}
		case <-poll.C:
			syncURL()
			if hu := s.HumanInControl(); hu != cur.Human {
				cur.Human = hu
				if !send("state", cur) {
					return
				}
			}
		case <-keepalive.C:
			if _, err := fmt.Fprint(w, ": keepalive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

func ptr[T any](v T) *T { return &v }
