// Package redact removes secret values from text a remote produced (a tool result, an error message)
// before it reaches an agent or the portal. One Redactor is built per set of secrets and then scans
// any input in one pass.
//
// # What is matched
//
// For every secret of MinLength bytes or more:
//
//   - the value, its JSON-escaped forms (Go's, and with "/" as "\/") and its URL-encoded forms (query
//     and path escaping), in any ASCII letter case;
//   - its hex encoding, in any letter case;
//   - its base64 encoding in the standard and URL alphabets, padded or not (the standard one also
//     query-escaped: %2B, %2F), also inside a longer base64 string: for each of the three byte
//     alignments the secret can have there, the characters that encode only secret bytes are
//     matched, and the match is widened over the up to three neighbouring alphabet characters (and
//     padding) that mix secret bits with others;
//   - any of those split by whitespace or line breaks, raw or JSON-escaped (\n, \r, \t);
//   - for Basic, base64 of "user:pass" for each ordered pair of short values (a login's user and
//     password fields).
//
// A value of MinExact to MinLength-1 bytes is matched only as itself, its JSON and its URL forms,
// exactly (any other form of so short a value would match ordinary text). A shorter value is never
// redacted.
//
// # Cost
//
// Forms are built once per Redactor. A scan is one pass of an Aho-Corasick automaton over the input
// (ASCII-folded, separators skipped) on the first TriggerLength bytes of every form; a hit is then
// checked against the whole form. The scan is linear in the input; only hits cost more.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"sync"
)

const (
	// MinLength is the shortest value matched in every form.
	MinLength = 8
	// MinExact is the shortest value redacted at all (literal, JSON and URL forms only).
	MinExact = 4
	// TriggerLength is how many leading bytes of a form the automaton matches before a full check.
	TriggerLength = 16
	// maxBasicPart bounds the values paired for Basic forms.
	maxBasicPart = 256
	// maxBasicFields bounds how many values are paired for Basic forms.
	maxBasicFields = 8
)

// Secret is one value and what replaces it.
type Secret struct {
	Value string
	With  string
}

type kind uint8

const (
	exact  kind = iota // the raw bytes, case and separators as they are
	folded             // any ASCII case, separators skipped
	b64std             // case-sensitive, separators skipped, widened over the standard alphabet
	b64url             // the same over the URL alphabet
)

type form struct {
	raw  []byte // exact: the bytes; otherwise the separator-free form (lowered when folded)
	kind kind
	trig int // trigger length
	with string
}

// Redactor replaces secrets in text. The zero value and nil redact nothing. Safe for concurrent use.
type Redactor struct {
	forms []form
	once  sync.Once
	m     *machine
}

// New builds a Redactor for secrets. pairs lists values that may be sent together as
// Basic base64(user:pass): every ordered pair of two of them is added (the second one's With is
// used).
func New(secrets []Secret, pairs []Secret) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(s string, k kind, with string) {
		var raw []byte
		switch k {
		case exact:
			raw = []byte(s)
		case folded:
			raw = lower(strip([]byte(s)))
		default:
			raw = strip([]byte(s))
		}
		if len(strip([]byte(s))) < MinExact {
			return
		}
		key := string(rune('0'+k)) + string(raw)
		if seen[key] {
			return
		}
		seen[key] = true
		r.forms = append(r.forms, form{raw: raw, kind: k, with: with})
	}
	for _, s := range secrets {
		v := s.Value
		if len(v) < MinExact {
			continue
		}
		k := folded
		if len(v) < MinLength {
			k = exact
		}
		for _, f := range textForms(v) {
			add(f, k, s.With)
		}
		if len(v) < MinLength {
			continue
		}
		add(hex.EncodeToString([]byte(v)), folded, s.With)
		for _, f := range base64Inner([]byte(v), base64.StdEncoding) {
			add(f, b64std, s.With)
			// In a URL query, as url.QueryEscape writes it.
			add(url.QueryEscape(f), b64std, s.With)
		}
		for _, f := range base64Inner([]byte(v), base64.URLEncoding) {
			add(f, b64url, s.With)
		}
	}
	var basic []Secret
	for _, p := range pairs {
		if len(p.Value) >= 1 && len(p.Value) <= maxBasicPart && len(basic) < maxBasicFields {
			basic = append(basic, p)
		}
	}
	for i, u := range basic {
		for j, p := range basic {
			if i == j || strings.Contains(u.Value, ":") || len(p.Value) < MinExact {
				continue
			}
			add(base64.StdEncoding.EncodeToString([]byte(u.Value+":"+p.Value)), b64std, p.With)
		}
	}
	return r
}

// textForms are v and its URL-encoded forms, each also JSON-escaped.
func textForms(v string) []string {
	var out []string
	for _, f := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
		out = append(out, f)
		if b, err := json.Marshal(f); err == nil {
			esc := string(b[1 : len(b)-1])
			out = append(out, esc, strings.ReplaceAll(esc, "/", `\/`))
		}
	}
	return out
}

// base64Inner is, for each alignment, the encoding of the whole 3-byte groups of v that start o bytes
// into it (o = 0, 1, 2): what base64 of any prefix+v+suffix contains whatever the prefix.
func base64Inner(v []byte, enc *base64.Encoding) []string {
	var out []string
	for o := 0; o < 3 && o < len(v); o++ {
		n := (len(v) - o) / 3 * 3
		if n > 0 {
			out = append(out, enc.EncodeToString(v[o:o+n]))
		}
	}
	return out
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil || len(r.forms) == 0 {
		return s
	}
	out, changed := r.redact([]byte(s))
	if !changed {
		return s
	}
	return string(out)
}

// Bytes redacts b; it returns b itself when nothing matched. A JSON text stays valid JSON: a match
// never cuts an escape sequence in two.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil || len(r.forms) == 0 {
		return b
	}
	out, _ := r.redact(b)
	return out
}

type span struct {
	start, end int
	with       string
}

func (r *Redactor) redact(b []byte) ([]byte, bool) {
	r.once.Do(func() { r.m = compile(r.forms) })
	spans := r.m.scan(b, r.forms)
	if len(spans) == 0 {
		return b, false
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var out bytes.Buffer
	out.Grow(len(b))
	last := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		i++
		for i < len(spans) && spans[i].start < s.end {
			s.end = max(s.end, spans[i].end)
			i++
		}
		if s.start < last { // widened into the previous span
			s.start = last
		}
		out.Write(b[last:s.start])
		out.WriteString(s.with)
		last = s.end
	}
	out.Write(b[last:])
	return out.Bytes(), true
}

var (
	space    [256]bool
	special  [256]bool // whitespace and the backslash: the bytes the scan looks at twice
	foldByte [256]byte
	inStd    [256]bool
	inURL    [256]bool
)

func init() {
	for _, c := range []byte(" \t\r\n\v\f") {
		space[c] = true
		special[c] = true
	}
	special['\\'] = true
	for i := range foldByte {
		c := byte(i)
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		foldByte[i] = c
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for _, c := range []byte(alnum + "+/") {
		inStd[c] = true
	}
	for _, c := range []byte(alnum + "-_") {
		inURL[c] = true
	}
}

func lower(b []byte) []byte {
	for i, c := range b {
		b[i] = foldByte[c]
	}
	return b
}

// strip drops the separators a scan skips: whitespace and the JSON escapes \n, \r, \t.
func strip(b []byte) []byte {
	out := make([]byte, 0, len(b))
	i, pair := kept(b, 0, false)
	for i < len(b) {
		out = append(out, b[i])
		i, pair = kept(b, i+1, pair)
	}
	return out
}

// kept is the index of the first byte at or after i that a scan keeps; pair says b[i] is the
// second byte of a kept escape pair (kept whatever it is). The bool returned is the pair flag of the
// byte after the returned one.
func kept(b []byte, i int, pair bool) (int, bool) {
	for i < len(b) {
		if pair {
			return i, false
		}
		c := b[i]
		switch {
		case space[c]:
			i++
		case c == '\\' && i+1 < len(b):
			switch b[i+1] {
			case 'n', 'r', 't':
				i += 2
				continue
			}
			return i, true
		default:
			return i, false
		}
	}
	return len(b), false
}
