package metatools

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// A reader of execute_tools' arguments that decodes nothing it does not need: the document is checked
// with json.Valid once, then walked by position. Each execution's args are written out canonically as
// they are walked, byte for byte what encoding/json writes for them decoded with json.Number (members
// sorted by name, no white space, numbers as written, strings with encoding/json's escapes): a string
// whose bytes need no escape is copied, any other goes through encoding/json, so the two can never
// disagree on an escape. An object that repeats a member name is not taken (ok false): decoding keeps
// the last of them, and the caller's generic path decides that case as it always has.

// jsonWalk is a position in a document json.Valid has accepted.
type jsonWalk struct {
	b []byte
	i int
}

func (w *jsonWalk) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte (0 at the end).
func (w *jsonWalk) next() byte {
	w.ws()
	if w.i >= len(w.b) {
		return 0
	}
	return w.b[w.i]
}

// str returns the string literal at the position, quotes included, and moves past it.
func (w *jsonWalk) str() []byte {
	start := w.i
	w.i++
	for {
		switch w.b[w.i] {
		case '\\':
			w.i += 2
		case '"':
			w.i++
			return w.b[start:w.i]
		default:
			w.i++
		}
	}
}

// skip moves past the value at the position and returns it.
func (w *jsonWalk) skip() []byte {
	w.ws()
	start := w.i
	switch w.b[w.i] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for {
			switch w.b[w.i] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.i++
			if depth == 0 {
				break
			}
		}
	default: // a number, true, false or null
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return w.b[start:w.i]
			}
			w.i++
		}
	}
	return w.b[start:w.i]
}

// member is one member of an object: its decoded name and its raw value.
type member struct {
	name  string
	value []byte
}

// members reads the object at the position into its members, in document order; ok is false when it
// is not an object.
func (w *jsonWalk) members(into []member) ([]member, bool) {
	if w.next() != '{' {
		return nil, false
	}
	w.i++
	if w.next() == '}' {
		w.i++
		return into, true
	}
	for {
		w.next()
		name := stringValue(w.str())
		w.next()
		w.i++ // the colon
		into = append(into, member{name: name, value: w.skip()})
		c := w.next()
		w.i++
		if c == '}' {
			return into, true
		}
	}
}

// plain reports whether the content of a string literal (quotes included) is what encoding/json
// writes for it: printable ASCII with nothing it escapes.
func plain(lit []byte) bool {
	for _, c := range lit[1 : len(lit)-1] {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// stringValue decodes a string literal.
func stringValue(lit []byte) string {
	if plain(lit) {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	json.Unmarshal(lit, &s) //nolint:errcheck // json.Valid vouched for it
	return s
}

// appendString appends s as encoding/json encodes it.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendCanonical appends the canonical encoding of the valid JSON value v; ok is false when an
// object in it repeats a member name.
func appendCanonical(dst, v []byte) ([]byte, bool) {
	w := jsonWalk{b: v}
	switch w.next() {
	case '{':
		ms, _ := w.members(make([]member, 0, 8))
		slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				if m.name == ms[i-1].name {
					return dst, false
				}
				dst = append(dst, ',')
			}
			dst = appendString(dst, m.name)
			dst = append(dst, ':')
			var ok bool
			if dst, ok = appendCanonical(dst, m.value); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case '[':
		w.i++
		dst = append(dst, '[')
		if w.next() == ']' {
			return append(dst, ']'), true
		}
		for {
			var ok bool
			if dst, ok = appendCanonical(dst, w.skip()); !ok {
				return dst, false
			}
			c := w.next()
			w.i++
			if c == ']' {
				return append(dst, ']'), true
			}
			dst = append(dst, ',')
		}
	case '"':
		lit := w.str()
		if plain(lit) {
			return append(dst, lit...), true
		}
		return appendString(dst, stringValue(lit)), true
	}
	// A number (kept as written, as json.Number is), true, false or null.
	return append(dst, bytes.TrimSpace(v)...), true
}
