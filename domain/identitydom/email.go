package identitydom

import (
	"net/mail"
	"strings"

	"github.com/workbench/workbench/domain"
)

// MaxEmailLen is the longest address accepted: 254 octets, the limit a forward path imposes (RFC 5321
// section 4.5.3.1.3, with RFC 3696 erratum 1690).
const MaxEmailLen = 254

// NormalizeEmail returns the canonical form of an address, trimmed and in lower case, or a CodeInvalid
// error. The local part is case-sensitive by the letter of RFC 5321 section 2.4, but no provider we
// sign users in through (Google, Keycloak) treats it so, and two accounts that differ only in case
// would be a trap; so workbench compares addresses in lower case. Only a bare addr-spec is accepted
// (no display name, no angle brackets, no comments), with a dot in the domain.
func NormalizeEmail(email string) (string, error) {
	e := canonicalEmail(email)
	if e == "" {
		return "", domain.Errorf(domain.CodeInvalid, "email address is empty")
	}
	if len(e) > MaxEmailLen {
		return "", domain.Errorf(domain.CodeInvalid, "email address is %d bytes long; at most %d are allowed", len(e), MaxEmailLen)
	}
	addr, err := mail.ParseAddress(e)
	if err != nil || addr.Name != "" || addr.Address != e {
		return "", domain.Errorf(domain.CodeInvalid, "%q is not an email address of the form name@example.com", email)
	}
	local, host, _ := strings.Cut(e, "@")
	if local == "" || !strings.Contains(host, ".") || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return "", domain.Errorf(domain.CodeInvalid, "%q is not an email address of the form name@example.com", email)
	}
	return e, nil
}

// canonicalEmail is the normalisation without validation, shared by NormalizeEmail and
// EmailStreamName so the two can never disagree.
func canonicalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
