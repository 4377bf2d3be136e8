// Package browser runs the browser sessions: one headless Chromium per user, started on first use with
// a persistent profile under <data dir>/browser/<user> (mode 0700), closed after an idle time with the
// profile kept, and shared by everything that drives the user's browser (the browser_* tools, cookie
// capture, the live view).
//
// # Sessions
//
// Pool.Acquire returns the user's Session, spawning Chromium when none runs, and claims it until
// Session.Release. It answers ErrBusy only while a spawn for that user is in flight or a profile reset
// is pending or running, and ErrLimit when the server already runs Config.MaxSessions. Pool.Reset
// closes the browser and wipes the profile; asked while the profile is claimed, it is recorded as
// pending, answers ErrBusy, and runs when the last claim is released. Pool.Reap (run in the background,
// or by tests after moving the injected clock) closes sessions unclaimed for IdleTTL and sessions
// whose processes hold more than MemoryLimitBytes (proportional set size, summed over the process
// group). A Chromium that exits on its own is reported as crashed at once and replaced by the next
// Acquire, reported as a restart. Session.Page returns the current page and closes pages over
// MaxPages. Every change is reported to Config.OnEvent.
//
// # Processes
//
// Chromium is the executable in Config.Bin (WORKBENCH_CHROMIUM, default /usr/bin/chromium); rod's
// launcher only formats its flags, and the process is started here, so no browser is ever downloaded.
// Each Chromium leads its own process group. Stopping one asks it to close over CDP (it flushes the
// profile's cookies and ends its children), then kills the group and waits until the leader is reaped
// and no process of the group is left; Close does so for every session. So that the renderers of a
// killed Chromium are reaped even under an init that never reaps (a container's PID 1), the first spawn
// makes this process a child subreaper (Linux, prctl PR_SET_CHILD_SUBREAPER): orphans of its descendants are
// reparented here, and the pool reaps those of its Chromiums and their crash handlers.
//
// # Containment
//
// Chromium resolves and connects by itself, so it is given a proxy: each Chromium gets its own HTTP
// forward proxy on 127.0.0.1 (--proxy-server, with "<-loopback>" so loopback is no longer bypassed),
// and every request of every page (navigation, subresources, fetch and XHR, WebSockets, https:// as
// CONNECT tunnels) goes through it. The proxy dials through internal/ssrf, so the same rule as every
// other outbound request applies, to the address actually connected to: loopback, private, link-local
// and metadata addresses, NAT64 and 6to4 forms of them are refused, loopback only allowed with
// Config.AllowLoopback (WORKBENCH_DEV_ALLOW_LOOPBACK). A refused request is answered 403 and recorded
// (Session.Refusals). Schemes other than http and https never reach the proxy: the browser tools accept
// only http and https URLs, and Chromium itself keeps web pages from loading file: and chrome: URLs.
// WebRTC is restricted to proxied connections, downloads are denied, and the popup blocker stays on.
//
// The proxy listens on loopback without a password: another process of the same machine could use it,
// but only to reach what the server itself may reach (public addresses).
package browserpool
