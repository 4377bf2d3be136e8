// Package curlsession records the curl_session escape hatch (spec, concepts: "Curl session"): a
// SessionMinted event when a token is issued, and one RequestProxied event per request the proxy
// forwards (or refuses) under a valid token. The token itself is never recorded: it is an HMAC-signed
// claim (handlers/proxy) that every replica can verify without a read, and the log holds only its
// session id, user, integrations and expiry.
//
// A session is one stream, SessionStreamName(id): SessionMinted first (appended with NoStream, before
// the token leaves the server), then, appended with Any, a RequestForwarded for each request before it
// is sent to the provider (durable first) and the RequestProxied of each request once it is over
// (written in batches, after the answer; the proxy's own refusals are written before their answer). The request events carry sizes and query parameter names, never a body, a header,
// a query value or the token.
package curlsession
