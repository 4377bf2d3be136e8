// Package signed seals a small typed value into a token the server can later trust again without
// storing it: MCP session ids, the portal session cookie, claim links, curl_session tokens and jot
// password cookies are all one Sealer each.
//
// A token is
//
//	base64url(JSON {"p": payload, "x": expiry in unix seconds}) "." base64url(HMAC-SHA256(key, first part))
//
// both parts in unpadded, canonical base64url (RFC 4648 section 5; a string with non-zero trailing
// bits is refused, so one value has one token).
//
// # Keys and labels
//
// Every Sealer derives its own HMAC key, once, when it is built: HKDF-SHA256 (RFC 5869) of the secret
// it is given, with its label as the info string. Two token kinds built from one secret therefore never
// share a key, and a token of one kind does not open as another (domain separation). A label names the
// kind and its format version ("workbench/mcp-session/v2"); changing a payload's shape means a new
// label, which makes every token minted before unreadable rather than misread. DeriveKey is the same
// derivation for keys that are not token keys (the OAuth signing seed, the sign-in flow key), so the
// repository has one key-derivation function.
//
// # Opening
//
// Open does the cheap, safe checks in an order that never feeds unauthenticated bytes to a parser:
//
//  1. the token's length against the Sealer's cap, before anything is decoded;
//  2. the shape: nothing but the base64url alphabet and one dot (the decoder of encoding/base64
//     would skip line breaks), two canonical base64url parts, a 32-byte MAC;
//  3. the MAC, compared in constant time on the raw bytes (hmac.Equal), not on their encodings;
//  4. only then the JSON, and the expiry against the injected clock (a token is expired from its
//     expiry second on).
//
// The errors say which step refused: ErrMalformed, ErrForged, ErrExpired. An expired token's payload is
// returned with ErrExpired, because it is genuine: a caller may still tell "expired" from "made for
// someone else" (claim links do). Seal refuses to mint a token Open would refuse as too long.
package signed
