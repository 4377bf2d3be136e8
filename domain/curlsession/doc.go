// Package curlsession records the curl_session escape hatch (spec, concepts: "Curl session"): a
// SessionMinted event when a token is issued, and one RequestProxied event per request the proxy
// forwards (or refuses) under a valid token. The token itself is never recorded: it is an HMAC-signed
// claim (handlers/proxy) that every replica can verify without a read, and the log holds only its
// session id, user, integrations and expiry.
//
// A session's mint is its own stream, SessionStreamName(id), appended with NoStream; each proxied
// request is its own stream, RequestStreamName(id), so that concurrent requests never contend. The
// request events carry the session id and sizes, never a body, a header or a query value.
package curlsession
