package browserhttp

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// Limits of one input batch.
const (
	maxCommands  = 100
	maxTextRunes = 4096
	maxCoord     = 100000
	// inputTimeout bounds one batch; a navigation waits for the page's load within it.
	inputTimeout = 20 * time.Second
)

// command is one input command of a batch, in the viewport's CSS pixels (frame.Width, frame.Height).
//
//	{"type":"click","x":10,"y":20}                  left click (also "mousedown", "mouseup", "mousemove"; "button": left|middle|right)
//	{"type":"wheel","x":10,"y":20,"dx":0,"dy":120}  scroll
//	{"type":"key","key":"Enter"}                    a named key (keyKeys)
//	{"type":"text","text":"hello"}                  typed text
//	{"type":"navigate","url":"https://…"}           http and https only
//	{"type":"back"}, {"type":"forward"}, {"type":"reload"}
type command struct {
	Type   string  `json:"type"`
	X      float64 `json:"x,omitempty"`
	Y      float64 `json:"y,omitempty"`
	DX     float64 `json:"dx,omitempty"`
	DY     float64 `json:"dy,omitempty"`
	Button string  `json:"button,omitempty"`
	Key    string  `json:"key,omitempty"`
	Text   string  `json:"text,omitempty"`
	URL    string  `json:"url,omitempty"`
}

type inputRequest struct {
	Commands []command `json:"commands"`
}

// namedKey is what CDP needs of a key that is not text.
type namedKey struct {
	code int
	text string
}

// keyKeys are the named keys the live view sends (DOM KeyboardEvent.key values).
var keyKeys = map[string]namedKey{
	"Enter": {13, "\r"}, "Tab": {9, ""}, "Backspace": {8, ""}, "Escape": {27, ""}, "Delete": {46, ""},
	"ArrowLeft": {37, ""}, "ArrowUp": {38, ""}, "ArrowRight": {39, ""}, "ArrowDown": {40, ""},
	"Home": {36, ""}, "End": {35, ""}, "PageUp": {33, ""}, "PageDown": {34, ""}, " ": {32, " "},
}

var mouseButtons = map[string]proto.InputMouseButton{
	"": proto.InputMouseButtonLeft, "left": proto.InputMouseButtonLeft,
	"middle": proto.InputMouseButtonMiddle, "right": proto.InputMouseButtonRight,
}

// check validates one command; every command of a batch is checked before any runs.
func (c command) check(i int) error {
	bad := func(format string, args ...any) error {
		return domain.Errorf(domain.CodeInvalid, "commands[%d]: %s", i, fmt.Sprintf(format, args...))
	}
	coords := func() error {
		for _, v := range []float64{c.X, c.Y, c.DX, c.DY} {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxCoord {
				return bad("coordinates must be finite numbers within ±%d", maxCoord)
			}
		}
		if c.X < 0 || c.Y < 0 {
			return bad("x and y must not be negative")
		}
		if _, ok := mouseButtons[c.Button]; !ok {
			return bad("button %q is not one of left, middle, right", c.Button)
		}
		return nil
	}
	switch c.Type {
	case "click", "mousedown", "mouseup", "mousemove", "wheel":
		return coords()
	case "key":
		if _, ok := keyKeys[c.Key]; !ok {
			return bad("key %q is not a named key the live view sends; send text as {\"type\":\"text\"}", c.Key)
		}
	case "text":
		if c.Text == "" || !utf8.ValidString(c.Text) || utf8.RuneCountInString(c.Text) > maxTextRunes {
			return bad("text must be 1 to %d characters of UTF-8", maxTextRunes)
		}
	case "navigate":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url must be an absolute http or https URL")
		}
	case "back", "forward", "reload":
	default:
		return bad("type %q is not one of click, mousedown, mouseup, mousemove, wheel, key, text, navigate, back, forward, reload", c.Type)
	}
	return nil
}

// input runs a batch of commands on the user's current page, in order, while the human holds
// control, and answers the page's state after it.
func (h *routes) input(w http.ResponseWriter, r *http.Request, user uuid.UUID) {
	var req inputRequest
	if err := decodeJSON(r, &req); err != nil || len(req.Commands) == 0 {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, `the body must be {"commands": [{"type": "click", "x": 10, "y": 20}, …]}`))
		return
	}
	if len(req.Commands) > maxCommands {
		handlers.WriteError(w, r, h.Logger, domain.Errorf(domain.CodeInvalid, "at most %d commands in one batch", maxCommands))
		return
	}
	for i, c := range req.Commands {
		if err := c.check(i); err != nil {
			handlers.WriteError(w, r, h.Logger, err)
			return
		}
	}
	defer h.inputTurn(user)()
	s, ok := h.acquire(w, r, user, http.StatusConflict)
	if !ok {
		return
	}
	defer s.Release()
	if !s.HumanInControl() {
		handlers.WriteJSON(w, http.StatusConflict, handlers.ErrorBody{Error: CodeNotInControl,
			Message: "the agent holds this browser; take control in the live view first"})
		return
	}
	s.Touch()
	ctx, cancel := context.WithTimeout(r.Context(), inputTimeout)
	defer cancel()
	page, err := s.Page(ctx)
	if err != nil {
		handlers.WriteError(w, r, h.Logger, err)
		return
	}
	p := page.Context(ctx)
	for i, c := range req.Commands {
		if err := run(p, c); err != nil {
			handlers.WriteError(w, r, h.Logger, &domain.Error{Code: domain.CodeUnavailable,
				Message: fmt.Sprintf("commands[%d] (%s) did not complete in the browser: %v", i, c.Type, err), Err: err})
			return
		}
	}
	st := state{Human: s.HumanInControl()}
	if info, err := p.Info(); err == nil {
		st.URL = info.URL
	}
	handlers.WriteJSON(w, http.StatusOK, st)
}

// run sends one command to the page over CDP (Input.dispatchMouseEvent, Input.dispatchKeyEvent,
// Input.insertText, Page.navigate and the history).
func run(p *rod.Page, c command) error {
	mouse := func(t proto.InputDispatchMouseEventType, clicks int) error {
		ev := proto.InputDispatchMouseEvent{Type: t, X: c.X, Y: c.Y}
		if t != proto.InputDispatchMouseEventTypeMouseMoved {
			ev.Button = mouseButtons[c.Button]
			ev.ClickCount = clicks
		}
		return ev.Call(p)
	}
	switch c.Type {
	case "click":
		if err := mouse(proto.InputDispatchMouseEventTypeMouseMoved, 0); err != nil {
			return err
		}
		if err := mouse(proto.InputDispatchMouseEventTypeMousePressed, 1); err != nil {
			return err
		}
		return mouse(proto.InputDispatchMouseEventTypeMouseReleased, 1)
	case "mousedown":
		return mouse(proto.InputDispatchMouseEventTypeMousePressed, 1)
	case "mouseup":
		return mouse(proto.InputDispatchMouseEventTypeMouseReleased, 1)
	case "mousemove":
		return mouse(proto.InputDispatchMouseEventTypeMouseMoved, 0)
	case "wheel":
		return proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseWheel, X: c.X, Y: c.Y, DeltaX: c.DX, DeltaY: c.DY}.Call(p)
	case "key":
		k := keyKeys[c.Key]
		down := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyDown, Key: c.Key,
			WindowsVirtualKeyCode: k.code, NativeVirtualKeyCode: k.code, Text: k.text}
		if k.text == "" {
			down.Type = proto.InputDispatchKeyEventTypeRawKeyDown
		}
		if err := down.Call(p); err != nil {
			return err
		}
		return proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyUp, Key: c.Key,
			WindowsVirtualKeyCode: k.code, NativeVirtualKeyCode: k.code}.Call(p)
	case "text":
		return proto.InputInsertText{Text: c.Text}.Call(p)
	case "navigate":
		return navigate(p, c.URL)
	case "back":
		return p.NavigateBack()
	case "forward":
		return p.NavigateForward()
	case "reload":
		return p.Reload()
	}
	return fmt.Errorf("unknown command %q", c.Type)
}

// navigate loads u in the page and waits for its load event, so that the answer's URL and the next
// command (a Back) find the new document committed. The wait is set up before the navigation starts
// and takes the main frame's first load event after it started loading (or its move to a fragment of
// the same document, where nothing loads): rod's WaitLoad right after
// Navigate may evaluate in the document being left, which is loaded already, and answer at once.
func navigate(p *rod.Page, u string) error {
	ctx, cancel := context.WithCancel(p.GetContext())
	defer cancel()
	started := false // read and written by the event loop's one goroutine only
	wait := p.Context(ctx).EachEvent(func(e *proto.PageFrameStartedLoading) {
		if e.FrameID == p.FrameID {
			started = true
		}
	}, func(*proto.PageLoadEventFired) bool {
		return started
	}, func(e *proto.PageNavigatedWithinDocument) bool {
		return e.FrameID == p.FrameID // a fragment of the same document: nothing loads
	})
	loaded := make(chan struct{})
	go func() { wait(); close(loaded) }()
	if err := p.Navigate(u); err != nil {
		return err
	}
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s to load: %w", u, ctx.Err())
	}
}
