// Package httpserve owns how the server meets the network before any route runs: the HTTP timeouts,
// the per-client connection cap, the exemption of streaming responses from the write timeout, and the
// redirect of portal pages to the public URL's host.
//
// Decisions, and why:
//
//   - Timeouts. ReadHeaderTimeout bounds the request head, ReadTimeout the whole request (head and
//     body), WriteTimeout the response, IdleTimeout a keep-alive connection between requests. Without
//     them a client can hold a connection (and its goroutine and buffers) forever by sending nothing
//     or one byte a minute. A route whose response is a stream of unknown length (the curl proxy,
//     which relays request and response bodies both ways) or whose answer may legitimately take
//     longer than WriteTimeout (an MCP tool call, wait_for_connection, an audit export) is wrapped in
//     Streaming, which lifts the read and write deadlines for that one request through
//     http.ResponseController. Only authenticated routes are exempted, and the MCP endpoint reads its
//     (capped) request body before the deadline is lifted, so an unauthenticated slow client is still
//     cut off. There is nothing else to exempt: the MCP endpoint offers no GET stream, and the portal
//     uses no server-sent events. Jot uploads and downloads stay under the deadlines (they are
//     bounded by JOTS_MAX_BYTES, and jots are public), so a large limit needs longer deadlines.
//   - Connection cap. Limit wraps the listener and counts open connections per remote IP address. A
//     connection over the cap is accepted and closed at once, before a byte is read: answering 503
//     would mean reading a request head first, which is exactly the work a flood wants from us, and a
//     client that opened hundreds of connections is not one that reads error bodies. Loopback is not
//     exempt. Behind a reverse proxy every client has the proxy's address, so the cap there is a cap
//     on the proxy's connections: raise MAX_CONNS_PER_CLIENT, or set 0 to turn the cap off.
//   - Request size (edge.go). A request head over MaxHeaderBytes (64 KiB) is answered 431 by
//     net/http. A body over a route's cap is answered by the route (413, as JSON-RPC on /mcp); Edge's
//     DrainBodies then reads and discards the rest of it, bounded by MaxDrainBytes and DrainTimeout,
//     before the connection closes: closing with unread data makes the kernel reset the connection,
//     and a client still sending its body never sees the 413 (nginx calls this a lingering close).
//   - Canonical host. A browser that opens the portal on another name of the same server (say
//     http://127.0.0.1:8080 when SERVER_PUBLIC_URL says localhost) gets cookies and an Origin the
//     server does not accept, so every action fails. CanonicalHost answers a GET or HEAD of a portal
//     page on another host with 308 to the same path and query on the public URL. Machine endpoints
//     (MCP, OAuth, well-known metadata, the curl proxy, jots, health, metrics, /api/) are never
//     redirected: their clients do not follow redirects with credentials, and jots may be served from
//     their own origin. Behind a reverse proxy the proxy must pass the original Host (or set
//     X-Forwarded-Host), or every page would redirect to itself.
package httpserve
