package connections

import (
	"sort"
	"strings"
	"sync"

	"github.com/workbench/workbench/internal/redact"
	"github.com/workbench/workbench/plugins"
)

// Redacted is what replaces a credential value in a tool's result or error.
const Redacted = "[REDACTED]"

// held collects the secret values of one Access: those known when it is made (an API key's
// fields, the cookie values, the OAuth client secret) and those its GetToken hands out or reads
// later (an access token as fetched for the call, after a lazy refresh too, and the stored refresh
// token beside it). Safe for concurrent use; a nil *held records nothing.
type held struct {
	mu      sync.Mutex
	secrets []string
	pairs   []string // values a Basic user:pass may be made of
	seen    map[string]bool
	cache   *redactors // the Service's (nil: build every time)
}

// add records secret values (the empty ones and repeats are dropped).
func (h *held) add(values ...string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range values {
		if v == "" || h.seen[v] {
			continue
		}
		if h.seen == nil {
			h.seen = map[string]bool{}
		}
		h.seen[v] = true
		h.secrets = append(h.secrets, v)
	}
}

// pair records values that may be sent together as Basic base64(user:pass) (an OAuth client's id
// and secret, an API key's fields), secrets first: redact.New pairs only the first few. A value
// pair records is not redacted on its own unless add recorded it too. Tokens are never paired.
func (h *held) pair(values ...string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range values {
		if v != "" {
			h.pairs = append(h.pairs, v)
		}
	}
}

// document records the tokens of a stored OAuth document: both tokens a provider may issue
// (Slack's bot and user token) and their refresh tokens.
func (h *held) document(d Document) {
	h.add(d.AccessToken, d.RefreshToken)
	if d.AuthedUser != nil {
		h.add(d.AuthedUser.AccessToken, d.AuthedUser.RefreshToken)
	}
}

// Redactor redacts the credential values of one Access from a tool's result and error. A nil
// *Redactor redacts nothing.
type Redactor struct {
	r       *redact.Redactor
	secrets []string
}

// Redactor returns a redactor of the credential values this Access holds or has handed out so
// far (internal/redact's forms: case, URL, JSON, hex, base64, split by whitespace, Basic pairs),
// each replaced by Redacted; call it after the tool has run, so that a token fetched during the
// call is in it. Nil when there are none, so a call without a credential builds nothing.
func (a Access) Redactor() *Redactor {
	h := a.held
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.secrets) == 0 {
		return nil
	}
	return &Redactor{r: h.cache.get(h.secrets, h.pairs), secrets: append([]string(nil), h.secrets...)}
}

// Bytes redacts a result; a JSON text stays JSON, and b itself comes back when nothing matched.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return r.r.Bytes(b)
}

// Message redacts an error message. The plugin runtime cuts a provider's message short with "…":
// the beginning of a secret left just before the cut (redact.MinExact bytes or more, any case) is
// redacted too.
func (r *Redactor) Message(s string) string {
	if r == nil {
		return s
	}
	s = r.r.String(s)
	body, cut := strings.CutSuffix(s, "…")
	if !cut {
		return s
	}
	longest := 0
	for _, v := range r.secrets {
		for n := min(len(v), len(body)); n >= redact.MinExact && n > longest; n-- {
			if strings.EqualFold(body[len(body)-n:], v[:n]) {
				longest = n
				break
			}
		}
	}
	if longest == 0 {
		return s
	}
	return body[:len(body)-longest] + Redacted + "…"
}

// apiKeySecrets records an API key's values: every field marked secret or injected is redacted;
// all of them (a user name beside a key too) may make a Basic pair.
func apiKeySecrets(h *held, in *plugins.Integration, fields map[string]string) {
	k := in.Auth.APIKey
	if k == nil {
		return
	}
	injected := map[string]bool{}
	for _, inj := range k.Injections() {
		injected[inj.Field] = true
	}
	for _, f := range k.Fields {
		v := fields[f.Name]
		if f.Secret || injected[f.Name] {
			h.add(v)
			h.pair(v)
		}
	}
	for _, f := range k.Fields {
		if !f.Secret && !injected[f.Name] {
			h.pair(fields[f.Name])
		}
	}
}

// cookieSecrets records a cookie bundle's values of redact.MinLength bytes or more (a session id,
// not a "lang=en" preference that would blank ordinary words of a result).
func cookieSecrets(h *held, cookies []Cookie) {
	var vs []string
	for _, c := range cookies {
		if len(c.Value) >= redact.MinLength {
			vs = append(vs, c.Value)
		}
	}
	sort.Strings(vs)
	h.add(vs...)
}
