package connections

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
)

// Limits on a captured cookie bundle. A browser keeps at most 180 cookies per domain and 4096 bytes
// per cookie (RFC 6265 section 6.1 asks for at least 50 and 4096); a bundle past these is refused
// rather than truncated, so a connection never holds half a session.
const (
	maxCookies      = 300
	maxCookieLen    = 4096
	maxCookieDomain = 253
)

// CookieBundle is what ConnectCookies stored.
type CookieBundle struct {
	// Stored counts the cookies kept: those of the declared domains, unexpired at capture.
	Stored int
	// ExpiresAt is the latest expiry among them; the connection counts as connected until then. Zero
	// when one of them is a session cookie (no expiry), which stays valid as long as the provider
	// accepts it.
	ExpiresAt time.Time
	// Domains are the integration's declared cookie domains (auth.cookie.domains) the bundle was
	// taken for.
	Domains []string
}

// ConnectCookies stores a cookie bundle captured in the user's live browser session (spec, Browser
// session; Connection: "cookie requires a stored bundle with at least one unexpired cookie"). Only
// the cookies whose domain is one of the integration's declared domains (auth.cookie.domains) or a
// subdomain of one are kept, and of those only the unexpired ones; the rest of the browser's jar is
// never stored. The bundle is sealed under the user's data key like any credential, and the
// connection is connected until the latest of its cookies expires (connection.State.Usable), when
// tool calls answer NOT_CONNECTED. A pending cookie connect attempt (the agent's connect link) is
// completed by it, so wait_for_connection hears CONNECTED. It replaces a stored bundle.
//
// No cookie of a declared domain is CodeInvalid saying to sign in first; nothing is stored then.
// The bundle is stored as the account labelled account (empty: the default account; see Accounts).
func (s *Service) ConnectCookies(ctx context.Context, user uuid.UUID, integration, account string, cookies []Cookie) (CookieBundle, error) {
	in, err := s.integration(integration)
	if err != nil {
		return CookieBundle{}, err
	}
	account, err = s.accountOrDefault(ctx, user, in.Name, account)
	if err != nil {
		return CookieBundle{}, err
	}
	if in.Auth.Mode != plugins.AuthCookie || in.Auth.Cookie == nil {
		return CookieBundle{}, domain.Errorf(domain.CodeInvalid, "%s does not connect with cookies (its auth mode is %s)", in.Name, in.Auth.Mode)
	}
	now := s.clock()
	kept, expires, err := keepCookies(in, cookies, now)
	if err != nil {
		return CookieBundle{}, err
	}
	sealed, err := s.sealDocument(ctx, user, in.Name, Document{Cookies: kept})
	if err != nil {
		return CookieBundle{}, err
	}
	if _, err := s.execute(ctx, user, in.Name, account, connection.Connect{
		UserID: user, Integration: in.Name, Account: account, AuthMode: connection.AuthCookie, Credential: sealed, ExpiresAt: expires, At: now,
	}); err != nil {
		return CookieBundle{}, fmt.Errorf("connect %s: %w", in.Name, err)
	}
	s.log.InfoContext(ctx, "cookie bundle stored", "integration", in.Name, "cookies", len(kept), "expires_at", expires)
	return CookieBundle{Stored: len(kept), ExpiresAt: expires, Domains: append([]string(nil), in.Auth.Cookie.Domains...)}, nil
}

// keepCookies filters a captured jar down to the declared domains' unexpired cookies, checks each,
// and returns them in a stable order with the bundle's expiry (see CookieBundle.ExpiresAt).
func keepCookies(in *plugins.Integration, cookies []Cookie, now time.Time) ([]Cookie, time.Time, error) {
	var kept []Cookie
	sessionCookie := false
	var latest time.Time
	for _, c := range cookies {
		if !cookieDomainDeclared(in, c.Domain) {
			continue
		}
		if !c.Expires.IsZero() && !now.Before(c.Expires) {
			continue
		}
		if err := checkCookie(in, c); err != nil {
			return nil, time.Time{}, err
		}
		c.Domain = strings.ToLower(c.Domain)
		c.Expires = c.Expires.UTC()
		kept = append(kept, c)
		if c.Expires.IsZero() {
			sessionCookie = true
		} else if c.Expires.After(latest) {
			latest = c.Expires
		}
	}
	if len(kept) == 0 {
		return nil, time.Time{}, domain.Errorf(domain.CodeInvalid,
			"no unexpired cookie of %s was found in the browser session; sign in to %s in the live view first, then capture",
			strings.Join(in.Auth.Cookie.Domains, ", "), in.DisplayName)
	}
	if len(kept) > maxCookies {
		return nil, time.Time{}, domain.Errorf(domain.CodeInvalid, "the browser holds %d cookies of %s, more than the %d a connection keeps", len(kept), in.Name, maxCookies)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].Domain != kept[j].Domain {
			return kept[i].Domain < kept[j].Domain
		}
		if kept[i].Path != kept[j].Path {
			return kept[i].Path < kept[j].Path
		}
		return kept[i].Name < kept[j].Name
	})
	if sessionCookie {
		latest = time.Time{}
	}
	return kept, latest, nil
}

// cookieDomainDeclared reports whether a cookie of domain d (a leading dot ignored) belongs to one of
// the integration's declared cookie domains: the domain itself or a subdomain of it.
func cookieDomainDeclared(in *plugins.Integration, d string) bool {
	if in.Auth.Cookie == nil {
		return false
	}
	d = strings.TrimPrefix(strings.ToLower(d), ".")
	if d == "" {
		return false
	}
	for _, declared := range in.Auth.Cookie.Domains {
		declared = strings.TrimPrefix(strings.ToLower(declared), ".")
		if d == declared || strings.HasSuffix(d, "."+declared) {
			return true
		}
	}
	return false
}

// checkCookie refuses a cookie that could not be sent back as it was set: a name that is not an
// RFC 6265 token, a value or attribute with control characters, or one past the size limits.
func checkCookie(in *plugins.Integration, c Cookie) error {
	bad := func(why string) error {
		return domain.Errorf(domain.CodeInvalid, "a cookie of %s cannot be stored: %s", in.Name, why)
	}
	switch {
	case c.Name == "" || strings.IndexFunc(c.Name, func(r rune) bool { return !isCookieTokenRune(r) }) >= 0:
		return bad(fmt.Sprintf("the name %q is not a cookie name", c.Name))
	case len(c.Name)+len(c.Value) > maxCookieLen:
		return bad(fmt.Sprintf("%s is longer than %d bytes", c.Name, maxCookieLen))
	case len(c.Domain) > maxCookieDomain || len(c.Path) > maxCookieLen:
		return bad(fmt.Sprintf("%s has an oversized domain or path", c.Name))
	case strings.IndexFunc(c.Value+c.Path+c.Domain, func(r rune) bool { return unicode.IsControl(r) || r == ';' }) >= 0:
		return bad(fmt.Sprintf("%s holds a control character or a semicolon", c.Name))
	}
	// What net/http would silently drop when sending it is refused here, so the stored bundle is
	// exactly what tools send.
	if (&http.Cookie{Name: c.Name, Value: c.Value}).Valid() != nil {
		return bad(fmt.Sprintf("%s has a value that cannot be sent in a Cookie header", c.Name))
	}
	return nil
}

// isCookieTokenRune is an RFC 2616 token character (RFC 6265 section 4.1.1 cookie-name).
func isCookieTokenRune(r rune) bool {
	if r <= 0x20 || r >= 0x7f {
		return false
	}
	return !strings.ContainsRune(`()<>@,;:\"/[]?={}`, r)
}
