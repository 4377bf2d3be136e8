// Package ssrf keeps outbound requests that Workbench makes on a user's behalf (plugin tool calls, the
// curl proxy, OAuth token exchanges, API-key checks) away from private networks. The check runs when a
// connection is dialled, on the address actually connected to, so a public name later pointed inward
// (DNS rebinding) is caught as well as an address written into a manifest.
//
// # Which addresses are refused
//
// The rule follows the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates). An address is refused when it lies in a registry block that is not marked "Globally
// Reachable", even where a smaller entry inside that block is marked reachable: 192.0.0.9 (PCP anycast)
// and 192.0.0.10 (TURN anycast) sit in 192.0.0.0/24, and 2001:1::1, 2001:1::2, 2001:3::/32 (AMT),
// 2001:4:112::/48 (AS112), 2001:20::/28 (ORCHIDv2) and 2001:30::/28 (drone identifiers) sit in
// 2001::/23; none of them hosts an HTTP API, and one rule is easier to trust than a list of holes.
// The globally reachable blocks that stand alone stay allowed because they are ordinary public
// unicast: 192.31.196.0/24 and 192.175.48.0/24 (AS112), 192.52.193.0/24 (AMT) and 2620:4f:8000::/48
// (AS112). IPv4 multicast (224.0.0.0/4, not in the registry but never a server) is refused too.
//
// For IPv6 the rule is stricter still: outside the forms that embed an IPv4 address, only global
// unicast (2000::/3) can be dialled, which refuses the discard prefix 100::/64 and 100:0:0:1::/64,
// SRv6 SIDs 5f00::/16, unique-local fc00::/7 (including the cloud metadata fd00:ec2::/32), the
// deprecated site-local fec0::/10, link-local fe80::/10 and multicast ff00::/8. Inside 2000::/3 the
// documentation blocks 2001:db8::/32 and 3fff::/20 and the whole of 2001::/23 are refused.
//
// # Addresses that embed an IPv4 address
//
// An IPv6 address that a translator or tunnel turns into an IPv4 destination is judged by that IPv4
// destination, never by its IPv6 form, so 64:ff9b::10.0.0.1 is as private as 10.0.0.1:
//
//   - IPv4-mapped ::ffff:0:0/96: the embedded address (this is how Go reports IPv4 on a v6 socket).
//   - NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the embedded address in the last 32 bits.
//   - 6to4 2002::/16 (RFC 3056): the embedded address in bits 16 to 48.
//
// Tunnel and translation forms whose IPv4 destination cannot be read from the address alone are
// refused outright: local-use NAT64 64:ff9b:1::/48 (RFC 8215, any prefix length may be in use),
// Teredo 2001::/32 (the server and the obfuscated client address both matter) and the deprecated
// IPv4-compatible ::/96. Loopback is allowed only as itself (127.0.0.0/8 or ::1) under the development
// setting, never through an embedding.
//
// # Names and errors
//
// The transport resolves names itself, through a Resolver the caller can inject (tests answer with
// IP literals and never ask the system resolver), checks every address, and dials the permitted
// ones by literal; the dialer's Control hook checks the connected address again. A failed lookup is
// reported as a ResolveError naming only the host: the system's error would name the resolver's own
// address ("lookup x on 127.0.0.53:53"), which says something about the inside of the network to
// whoever wrote the manifest or the URL.
package ssrf
