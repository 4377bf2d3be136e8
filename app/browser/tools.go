package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browserpool"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/plugins"
)

// IntegrationName is the reserved name of the built-in browser integration.
const IntegrationName = "browser"

// DefaultLookupWait bounds how long a tool waits for an element to appear when the call sets no
// timeout_ms of its own.
const DefaultLookupWait = 10 * time.Second

// Limits of what a tool answers.
const (
	DefaultReadChars = 20000
	MaxReadChars     = 200000
	maxEvaluateBytes = 256 << 10
	maxTypeChars     = 10000
)

const timeoutProp = `"timeout_ms":{"type":"integer","minimum":100,"maximum":120000,"description":"This call's time limit in milliseconds (default 30000)."}`
const targetProps = `"selector":{"type":"string","minLength":1,"maxLength":1000,"description":"A CSS selector."},
	"ref":{"type":"string","pattern":"^e[0-9]+$","description":"An element reference from browser_read's snapshot, e.g. e42."}`

// Integration returns the browser integration for plugins.Registry.AddInternal: its manifest, its nine
// tools and their Go handlers, which close over the service. Plugins never reach the browser: the
// handlers are registered by the server, under the reserved name.
func (s *Service) Integration() (plugins.Manifest, []plugins.ToolSpec, map[string]plugins.Handler) {
	m := plugins.Manifest{
		Name:        IntegrationName,
		Version:     "1.0.0",
		DisplayName: "Browser",
		Description: "Drive the user's own headless browser session: navigate, read, click, type, wait, screenshot, and hand over to the user through a live view.",
		Categories:  []string{"browser"},
		Auth:        plugins.Auth{Mode: plugins.AuthNone},
	}
	evaluate := "Run a JavaScript expression in the current page and return its JSON value (promises are awaited)."
	if !s.opts.AllowEvaluate {
		evaluate += " Turned off on this server unless the operator sets BROWSER_ALLOW_EVALUATE=true."
	}
	obj := func(required string, props ...string) json.RawMessage {
		req := ""
		if required != "" {
			req = `"required":[` + required + `],`
		}
		return json.RawMessage(`{"type":"object","additionalProperties":false,` + req + `"properties":{` + strings.Join(append(props, timeoutProp), ",") + `}}`)
	}
	tools := []plugins.ToolSpec{
		{Name: "browser_navigate", Description: "Open an http(s) URL in the user's browser session and wait for it to load. Returns the final URL and title. " +
			"The browser reaches public addresses only.",
			InputSchema: obj(`"url"`, `"url":{"type":"string","minLength":1,"maxLength":8192,"description":"An http:// or https:// URL."}`)},
		{Name: "browser_screenshot", Description: "Take a PNG screenshot of the current page (the viewport, or the whole page with full_page); it is returned as image content.",
			InputSchema: obj("", `"full_page":{"type":"boolean","description":"Capture the whole page, not only the viewport."}`)},
		{Name: "browser_click", Description: "Click an element of the current page, given by a CSS selector or by a ref from browser_read. Waits for the element to appear.",
			InputSchema: obj("", targetProps)},
		{Name: "browser_type", Description: "Type text into an input of the current page (selector or ref), optionally clearing it first and pressing Enter after. The text is never logged or recorded.",
			InputSchema: obj(`"text"`, targetProps,
				`"text":{"type":"string","maxLength":10000,"description":"The text to type."}`,
				`"clear":{"type":"boolean","description":"Replace what the field holds."}`,
				`"submit":{"type":"boolean","description":"Press Enter after typing."}`)},
		{Name: "browser_read", Description: "Read the current page: its URL, title, visible text, and an accessibility snapshot in which each element has a ref (e.g. [ref=e42]) " +
			"that browser_click, browser_type and browser_wait accept. Refs stay valid while the element stays on the page.",
			InputSchema: obj("", `"selector":{"type":"string","minLength":1,"maxLength":1000,"description":"Read only this element's text."}`,
				`"max_chars":{"type":"integer","minimum":100,"maximum":200000,"description":"Cap on the text returned (default 20000)."}`)},
		{Name: "browser_wait", Description: "Wait until an element (selector or ref) is visible, or until a text appears on the page, within the call's time limit.",
			InputSchema: obj("", targetProps, `"text":{"type":"string","minLength":1,"maxLength":1000,"description":"Text to wait for."}`)},
		{Name: "browser_back", Description: "Go back to the previous page of the session's history and wait for it to load.",
			InputSchema: obj("")},
		{Name: "browser_evaluate", Description: evaluate,
			InputSchema: obj(`"expression"`, `"expression":{"type":"string","minLength":1,"maxLength":100000,"description":"A JavaScript expression."}`)},
		{Name: "browser_live_url", Description: "Get a short-lived link that opens a live view of this browser session in the Workbench portal, for the user only. " +
			"Give it to the user when they must act themselves (sign in, solve a challenge); while they drive, the browser tools answer HUMAN_IN_CONTROL. " +
			`With action "take_back" it takes control back from the user instead (their live view shows that the agent drives again) and the tools work at once.`,
			InputSchema: obj("", `"action":{"type":"string","enum":["open","take_back"],"description":"open (default): mint the live-view link; take_back: end the person's control of the browser."}`)},
	}
	for i := range tools {
		tools[i].Handler = plugins.HandlerGo
	}
	handlers := s.localHandlers()
	for name, h := range handlers {
		handlers[name] = s.routed(name, h)
	}
	// None of these tools starts Off (they drive the user's own sandboxed browser session, which holds no provider credential of Workbench's); each can still be switched Off at any scope.
	for i := range tools {
		tools[i].Mutating = new(bool)
	}
	return m, tools, handlers
}

// localHandlers are the tools' handlers on this replica's pool (Integration routes each call to the
// replica that holds the session first).
func (s *Service) localHandlers() map[string]plugins.Handler {
	return map[string]plugins.Handler{
		"browser_navigate":   s.tool("browser_navigate", (*call).navigate),
		"browser_screenshot": s.tool("browser_screenshot", (*call).screenshot),
		"browser_click":      s.tool("browser_click", (*call).click),
		"browser_type":       s.tool("browser_type", (*call).typeText),
		"browser_read":       s.tool("browser_read", (*call).read),
		"browser_wait":       s.tool("browser_wait", (*call).wait),
		"browser_back":       s.tool("browser_back", (*call).back),
		"browser_evaluate":   s.evaluateTool,
		"browser_live_url":   s.liveURLTool,
	}
}

// args are the arguments the tools share; each reads those it declares.
type args struct {
	URL        string `json:"url"`
	FullPage   bool   `json:"full_page"`
	Selector   string `json:"selector"`
	Ref        string `json:"ref"`
	Text       string `json:"text"`
	Clear      bool   `json:"clear"`
	Submit     bool   `json:"submit"`
	MaxChars   int    `json:"max_chars"`
	Expression string `json:"expression"`
	TimeoutMS  int    `json:"timeout_ms"`
	Action     string `json:"action"`
}

// call is one browser tool call on a claimed session.
type call struct {
	s     *Service
	tool  string
	a     args
	sess  *browserpool.Session
	page  *rod.Page
	ctx   context.Context
	limit time.Duration
	// lookup bounds waiting for an element: the call's limit when timeout_ms was given, else at most
	// DefaultLookupWait.
	lookup time.Duration
	// host is the URL host the call dealt with, for the log.
	host string
}

func toolError(code domain.Code, tool, format string, a ...any) error {
	return &domain.Error{Code: code, Message: tool + ": " + fmt.Sprintf(format, a...)}
}

// begin parses the arguments, claims the user's session and sets the call's time limit.
func (s *Service) begin(ctx context.Context, tool string, rc plugins.Context, raw json.RawMessage) (*call, context.CancelFunc, error) {
	user, err := uuid.Parse(rc.UserID())
	if err != nil {
		return nil, nil, toolError(domain.CodeUnauthenticated, tool, "no user")
	}
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, nil, toolError(domain.CodeInvalid, tool, "bad arguments: %v", err)
	}
	limit, lookup := s.opts.CallTimeout, min(s.opts.CallTimeout, DefaultLookupWait)
	if a.TimeoutMS > 0 {
		limit = min(time.Duration(a.TimeoutMS)*time.Millisecond, MaxCallTimeout)
		lookup = limit
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	sess, err := s.Acquire(ctx, user)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	c := &call{s: s, tool: tool, a: a, sess: sess, ctx: ctx, limit: limit, lookup: lookup}
	return c, func() { sess.Touch(); sess.Release(); cancel() }, nil
}

// tool wraps a tool's work: claim the session, refuse while a person drives it, run within the time
// limit, and word the failures.
func (s *Service) tool(name string, work func(*call) (any, error)) plugins.Handler {
	return func(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
		c, done, err := s.begin(ctx, name, rc, raw)
		if err != nil {
			return nil, err
		}
		defer done()
		if c.sess.HumanInControl() {
			return nil, poolError(browserpool.ErrHumanInControl)
		}
		c.page, err = c.sess.Page(c.ctx)
		if err != nil {
			return nil, c.fail(err)
		}
		out, err := work(c)
		plugins.NoteTarget(ctx, c.host)
		if err != nil {
			return nil, c.fail(err)
		}
		s.log.InfoContext(ctx, "browser tool", "tool", name, "user", rc.UserID(), "host", c.host)
		return out, nil
	}
}

// fail words an error of the call: a deadline names the limit; an application error passes as is.
func (c *call) fail(err error) error {
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		return err
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(c.ctx.Err(), context.DeadlineExceeded):
		return toolError(domain.CodeUnavailable, c.tool, "timed out after %s (the call's time limit; timeout_ms sets it, up to 120000)", c.limit)
	case errors.Is(err, context.Canceled):
		return toolError(domain.CodeUnavailable, c.tool, "cancelled")
	case !c.sess.Alive():
		return toolError(domain.CodeUnavailable, c.tool, "the browser session stopped during the call; call again to start a new one")
	}
	c.s.log.Warn("browser tool failed", "tool", c.tool, "user", c.sess.UserID(), "err", err)
	return toolError(domain.CodeUnavailable, c.tool, "the browser could not do it: %s", browserReason(err))
}

// browserReason is the short, page-content-free text of a browser error.
func browserReason(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "net::"); i >= 0 {
		return strings.Fields(msg[i:])[0]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

// element finds the call's target: a ref from browser_read, or a CSS selector waited for up to the
// lookup bound. Not found names the selector or ref.
func (c *call) element() (*rod.Element, error) {
	switch {
	case c.a.Ref != "" && c.a.Selector != "":
		return nil, toolError(domain.CodeInvalid, c.tool, "give a selector or a ref, not both")
	case c.a.Ref != "":
		id, err := strconv.Atoi(strings.TrimPrefix(c.a.Ref, "e"))
		if err != nil || !strings.HasPrefix(c.a.Ref, "e") {
			return nil, toolError(domain.CodeInvalid, c.tool, "ref %q is not a ref from browser_read (they look like e42)", c.a.Ref)
		}
		res, err := proto.DOMResolveNode{BackendNodeID: proto.DOMBackendNodeID(id)}.Call(c.page)
		if err != nil || res.Object == nil {
			return nil, toolError(domain.CodeNotFound, c.tool, "no element with ref %s on the current page (refs come from the latest browser_read of this page; read it again)", c.a.Ref)
		}
		el, err := c.page.ElementFromObject(res.Object)
		if err != nil {
			return nil, toolError(domain.CodeNotFound, c.tool, "no element with ref %s on the current page", c.a.Ref)
		}
		return el, nil
	case c.a.Selector != "":
		ctx, cancel := context.WithTimeout(c.ctx, c.lookup)
		defer cancel()
		el, err := c.page.Context(ctx).Element(c.a.Selector)
		if err != nil {
			if ctx.Err() != nil && c.ctx.Err() == nil || errors.Is(err, context.DeadlineExceeded) {
				return nil, toolError(domain.CodeNotFound, c.tool, "no element matches selector %q (waited %s)", c.a.Selector, c.lookup)
			}
			if strings.Contains(err.Error(), "not a valid selector") {
				return nil, toolError(domain.CodeInvalid, c.tool, "%q is not a valid CSS selector", c.a.Selector)
			}
			return nil, err
		}
		return el.Context(c.ctx), nil
	}
	return nil, toolError(domain.CodeInvalid, c.tool, "give a selector or a ref")
}

// target describes the call's target for messages.
func (c *call) target() string {
	if c.a.Ref != "" {
		return "ref " + c.a.Ref
	}
	return strconv.Quote(c.a.Selector)
}

// targetField is the element a result names, as data: the selector as given, or "ref eN".
func (c *call) targetField() string {
	if c.a.Ref != "" {
		return "ref " + c.a.Ref
	}
	return c.a.Selector
}

// state is the page's URL and title.
func (c *call) state() (map[string]any, error) {
	info, err := c.page.Info()
	if err != nil {
		return nil, err
	}
	if u, err := url.Parse(info.URL); err == nil {
		c.host = u.Host
	}
	return map[string]any{"url": info.URL, "title": info.Title}, nil
}

// checkURL refuses what the browser must never be sent to: a scheme other than http(s), or a host that
// is, or resolves to, an address outside the public internet (loopback only with the dev setting). The
// proxy applies the same rule again to the address it connects to, and to every subresource.
func (s *Service) checkURL(ctx context.Context, tool, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, toolError(domain.CodeInvalid, tool, "want an absolute http:// or https:// URL")
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		var r ssrf.Resolver = net.DefaultResolver
		if s.opts.Pool.Resolver != nil {
			r = s.opts.Pool.Resolver
		}
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return nil, toolError(domain.CodeInvalid, tool, "cannot resolve host %q", host)
		}
	}
	for _, ip := range addrs {
		if err := ssrf.Check(ip, s.opts.Pool.AllowLoopback); err != nil {
			return nil, toolError(domain.CodeForbidden, tool, "refused: %s is not a public address; the browser reaches public addresses only", host)
		}
	}
	return u, nil
}

func (c *call) navigate() (any, error) {
	u, err := c.s.checkURL(c.ctx, c.tool, c.a.URL)
	if err != nil {
		return nil, err
	}
	c.host = u.Host
	_, since := c.sess.Refusals(0)
	// A call that asked for progress hears of the two waits (mcppeer; notifications/progress).
	mcppeer.Report(c.ctx, 1, 2, "opening "+u.Host)
	navErr := c.page.Navigate(u.String())
	if navErr == nil {
		mcppeer.Report(c.ctx, 2, 2, u.Host+" answered; waiting for the page to load")
		navErr = c.page.WaitLoad()
	}
	// A redirect (or the page itself) to a refused address is reported as refused, not as a page.
	refused, _ := c.sess.Refusals(since)
	st, err := c.state()
	if err == nil {
		if fu, perr := url.Parse(st["url"].(string)); perr == nil {
			for _, r := range refused {
				if r.Host == fu.Host || r.Host == hostPort(fu) {
					return nil, toolError(domain.CodeForbidden, c.tool, "refused: %s", r.Reason)
				}
			}
		}
	}
	if navErr != nil {
		for _, r := range refused {
			if r.Host == hostPort(u) {
				return nil, toolError(domain.CodeForbidden, c.tool, "refused: %s", r.Reason)
			}
		}
		return nil, navErr
	}
	if err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		st["refused_requests"] = len(refused)
	}
	return st, nil
}

// hostPort is u's host with its port made explicit, as a proxy CONNECT names it.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func (c *call) screenshot() (any, error) {
	png, err := c.page.Screenshot(c.a.FullPage, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		return nil, err
	}
	st, err := c.state()
	if err != nil {
		return nil, err
	}
	st["bytes"] = len(png)
	st["image"] = plugins.Image{MIMEType: "image/png", Data: png}
	return st, nil
}

func (c *call) click() (any, error) {
	el, err := c.element()
	if err != nil {
		return nil, err
	}
	if err := c.act(func() error { return el.Click(proto.InputMouseButtonLeft, 1) }); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, toolError(domain.CodeUnavailable, c.tool, "%s did not become clickable, or its page did not load, within %s (the call's time limit)", c.target(), c.limit)
		}
		return nil, err
	}
	st, err := c.state()
	if err != nil {
		return nil, err
	}
	st["clicked"] = c.targetField()
	return st, nil
}

// navGrace is how long after a click or an Enter a navigation of the page must have started for the
// tool to wait for it to load.
const navGrace = 300 * time.Millisecond

// act runs an action that may start a navigation (a click on a link, Enter in a form). When the main
// frame starts loading within navGrace of it, act waits for the load, within the call's time limit, so
// the tool answers the new page's URL and title rather than a page half gone.
func (c *call) act(do func() error) error {
	evCtx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	started, loaded := make(chan struct{}, 1), make(chan struct{}, 1)
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	wait := c.page.Context(evCtx).EachEvent(func(e *proto.PageFrameStartedLoading) {
		if e.FrameID == c.page.FrameID {
			signal(started)
		}
	}, func(*proto.PageLoadEventFired) { signal(loaded) })
	go wait()
	if err := do(); err != nil {
		return err
	}
	grace := time.NewTimer(navGrace)
	defer grace.Stop()
	select {
	case <-started:
	case <-grace.C:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
	select {
	case <-loaded:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

func (c *call) typeText() (any, error) {
	if len([]rune(c.a.Text)) > maxTypeChars {
		return nil, toolError(domain.CodeInvalid, c.tool, "text is longer than %d characters", maxTypeChars)
	}
	el, err := c.element()
	if err != nil {
		return nil, err
	}
	if c.a.Clear {
		if err := el.SelectAllText(); err != nil {
			return nil, err
		}
	}
	if err := el.Input(c.a.Text); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, toolError(domain.CodeUnavailable, c.tool, "%s did not accept input within %s (the call's time limit)", c.target(), c.limit)
		}
		return nil, err
	}
	if c.a.Submit {
		if err := c.act(func() error { return c.page.Keyboard.Type(input.Enter) }); err != nil {
			return nil, err
		}
	}
	st, err := c.state()
	if err != nil {
		return nil, err
	}
	st["typed_chars"] = len([]rune(c.a.Text))
	st["into"] = c.targetField()
	return st, nil
}

func (c *call) read() (any, error) {
	limit := c.a.MaxChars
	if limit <= 0 {
		limit = DefaultReadChars
	}
	limit = min(limit, MaxReadChars)
	var text string
	if c.a.Selector != "" {
		el, err := c.element()
		if err != nil {
			return nil, err
		}
		if text, err = el.Text(); err != nil {
			return nil, err
		}
	} else {
		res, err := c.page.Eval(`() => document.body ? document.body.innerText : ""`)
		if err != nil {
			return nil, err
		}
		text = res.Value.Str()
	}
	st, err := c.state()
	if err != nil {
		return nil, err
	}
	text, cut := truncate(text, limit)
	snap, snapCut, err := snapshot(c.page, limit)
	if err != nil {
		return nil, err
	}
	st["text"] = text
	st["snapshot"] = snap
	if cut || snapCut {
		st["truncated"] = true
	}
	return st, nil
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], true
}

func (c *call) wait() (any, error) {
	switch {
	case c.a.Text != "" && (c.a.Selector != "" || c.a.Ref != ""):
		return nil, toolError(domain.CodeInvalid, c.tool, "give a selector, a ref or a text, one of them")
	case c.a.Text != "":
		err := c.page.Context(c.ctx).Wait(rod.Eval(`(t) => !!document.body && document.body.innerText.includes(t)`, c.a.Text))
		if err != nil {
			if c.ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
				return nil, toolError(domain.CodeUnavailable, c.tool, "the text %q did not appear within %s (the call's time limit)", c.a.Text, c.limit)
			}
			return nil, err
		}
	default:
		c.lookup = c.limit
		el, err := c.element()
		if err != nil {
			return nil, err
		}
		if err := el.WaitVisible(); err != nil {
			if c.ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
				return nil, toolError(domain.CodeUnavailable, c.tool, "%s did not become visible within %s (the call's time limit)", c.target(), c.limit)
			}
			return nil, err
		}
	}
	st, err := c.state()
	if err != nil {
		return nil, err
	}
	st["found"] = true
	return st, nil
}

func (c *call) back() (any, error) {
	h, err := proto.PageGetNavigationHistory{}.Call(c.page)
	if err != nil {
		return nil, err
	}
	if h.CurrentIndex <= 0 {
		return nil, toolError(domain.CodeConflict, c.tool, "there is no previous page in this session's history")
	}
	prev := h.Entries[h.CurrentIndex-1]
	if err := (proto.PageNavigateToHistoryEntry{EntryID: prev.ID}).Call(c.page); err != nil {
		return nil, err
	}
	// Back may be served from the back/forward cache without a load event: wait for the URL instead.
	if err := c.page.Context(c.ctx).Wait(rod.Eval(`(u) => location.href === u && document.readyState === "complete"`, prev.URL)); err != nil {
		return nil, err
	}
	return c.state()
}

func (s *Service) evaluateTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	if !s.opts.AllowEvaluate {
		return nil, toolError(domain.CodeForbidden, "browser_evaluate", "turned off on this server; the operator can turn it on with BROWSER_ALLOW_EVALUATE=true")
	}
	return s.tool("browser_evaluate", func(c *call) (any, error) {
		res, err := proto.RuntimeEvaluate{Expression: c.a.Expression, ReturnByValue: true, AwaitPromise: true, UserGesture: true}.Call(c.page)
		if err != nil {
			return nil, err
		}
		if res.ExceptionDetails != nil {
			msg := res.ExceptionDetails.Text
			if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
				msg = res.ExceptionDetails.Exception.Description
			}
			m, _ := truncate(msg, 500)
			return nil, toolError(domain.CodeInvalid, c.tool, "the expression threw: %s", m)
		}
		value := json.RawMessage("null")
		if res.Result != nil && res.Result.Type != proto.RuntimeRemoteObjectTypeUndefined {
			b, err := json.Marshal(res.Result.Value)
			if err == nil && len(b) > 0 {
				value = b
			}
		}
		if len(value) > maxEvaluateBytes {
			return nil, toolError(domain.CodeInvalid, c.tool, "the value is %d bytes, over the %d-byte cap", len(value), maxEvaluateBytes)
		}
		st, err := c.state()
		if err != nil {
			return nil, err
		}
		st["value"] = value
		return st, nil
	})(ctx, rc, raw)
}

func (s *Service) liveURLTool(ctx context.Context, rc plugins.Context, raw json.RawMessage) (any, error) {
	c, done, err := s.begin(ctx, "browser_live_url", rc, raw)
	if err != nil {
		return nil, err
	}
	defer done()
	user, _ := uuid.Parse(c.sess.UserID())
	switch c.a.Action {
	case "", "open":
	case "take_back":
		was := c.sess.HumanInControl()
		if err := s.TakeBack(c.ctx, c.sess, eventstore.Metadata{Actor: user.String()}); err != nil {
			return nil, c.fail(err)
		}
		s.log.InfoContext(ctx, "browser tool", "tool", "browser_live_url", "action", "take_back", "user", rc.UserID(), "was_human", was)
		msg := "Control is back with you: the browser tools work again, and the user's live view shows that the agent drives."
		if !was {
			msg = "No person had control: the browser tools work as they did."
		}
		return map[string]any{"human_in_control": false, "taken_back": was, "message": msg}, nil
	default:
		return nil, toolError(domain.CodeInvalid, "browser_live_url", `action must be "open" or "take_back", not %q`, c.a.Action)
	}
	u, exp, err := s.LiveURL(user)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"url": u, "expires_at": exp.UTC().Format(time.RFC3339),
		"how_to_use": fmt.Sprintf("Give this link to the user: it opens this browser live in the Workbench portal, for them only, and works until %s. "+
			"While they drive, the browser tools answer HUMAN_IN_CONTROL; they give control back from the page, or you take it back with action \"take_back\".", exp.UTC().Format(time.RFC3339)),
	}, nil
}
