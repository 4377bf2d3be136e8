// Package browser is the HTTP surface of the user's browser session for humans (spec, Browser
// session; How it works: "the portal drives a live browser over an origin-gated CDP bridge, SSE down,
// REST up"):
//
//	POST /api/browser-session/live-url      a live-view URL for the signed-in user (409 BROWSER_SESSION_BUSY);
//	                                        {"integration": <cookie integration>, "signin": true} first opens
//	                                        its sign-in page (auth.cookie.signin_url) and answers its display_name
//	POST /api/browser-session/reset         close the browser and wipe its profile (409 BROWSER_SESSION_BUSY)
//	POST /api/browser-session/capture       store a cookie integration's bundle (400 BROWSER_SESSION_BUSY)
//	GET  /api/browser-session/live/stream   text/event-stream of screencast frames (?t=<live token>)
//	POST /api/browser-session/live/input    a batch of mouse, keyboard, scroll and navigation commands
//	POST /api/browser-session/live/control  {"human": true|false}: take control, or give it back
//	GET  /api/browser-session/live/check    204 when the link is good and the user's; else 400 INVALID_LINK
//	                                        (forged, malformed or expired), 403 (another's), 401 (signed out)
//
// The live routes take the signed token of a live-view link (app/browser's Service.LiveURL, what the
// browser_live_url tool answers too) and the portal session of the same user: the link proves the
// server minted it, the session proves the person opening it is the session's owner; another user's
// session is 403, none is 401. Every live request
// must come from the portal's own origin: an Origin header other than SERVER_PUBLIC_URL's is 403
// CROSS_ORIGIN, and a request without one must say Sec-Fetch-Site: same-origin (what a browser sends
// for the portal's own EventSource), so no other site can read the frames or drive the browser.
//
// Frames come from CDP Page.startScreencast on the session's current page (JPEG, acknowledged one by
// one, so Chromium sends the next only when the last was taken); a slow client gets the newest frame,
// never a backlog. Stream state events carry the page's URL, whether it is loading and who drives.
// Opening the stream hands control to the human (app/browser's Service.HandOver): the browser
// tools answer HUMAN_IN_CONTROL until the human gives it back, or until the last stream of the user
// closes, or the server shuts down (Deps.Done). Input is taken only while the human holds control. A
// stream holds a claim on the session for as long as it is open, so a reset asked meanwhile waits for
// it (BROWSER_SESSION_BUSY; the portal's page lets go and reconnects). This package never appends to
// the log: the hand-over, take-back and capture are app/browser's (capture.go: Capture).
package browserhttp
