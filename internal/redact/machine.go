package redact

import "bytes"

// machine is an Aho-Corasick automaton, as a full transition table, over the ASCII-folded first
// TriggerLength separator-free bytes of every form.
type machine struct {
	class [256]byte // folded input byte -> column (0: a byte no trigger holds)
	width int
	delta []int32   // state*width + class -> state
	out   [][]int32 // state -> forms whose trigger ends here (own and by suffix)
	// offsets is delta with every target state s stored as s*width, and hit[s*width] whether s has
	// outputs: the scan's inner loop then does no multiplication and reads no slice header.
	offsets []int32
	hit     []bool
}

const ringSize = 32 // > TriggerLength, a power of two

func compile(forms []form) *machine {
	m := &machine{}
	trigs := make([][]byte, len(forms))
	cols := 1
	for i := range forms {
		t := forms[i].raw
		if forms[i].kind == exact {
			t = strip(t)
		}
		if len(t) > TriggerLength {
			t = t[:TriggerLength]
		}
		t = lower(append([]byte(nil), t...))
		trigs[i] = t
		forms[i].trig = len(t)
		for _, c := range t {
			if m.class[c] == 0 {
				m.class[c] = byte(cols)
				cols++
			}
		}
	}
	// Fold the class table so the scan looks up raw bytes.
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.width = cols
	// At most one state per trigger byte and the root: size the table once.
	states := 1
	for _, t := range trigs {
		states += len(t)
	}
	m.delta = make([]int32, 0, states*cols)
	m.out = make([][]int32, 0, states)
	// The trie, in the table; -1 is "no edge yet".
	newState := func() int32 {
		for range cols {
			m.delta = append(m.delta, -1)
		}
		m.out = append(m.out, nil)
		return int32(len(m.out) - 1)
	}
	newState()
	for i, t := range trigs {
		s := int32(0)
		for _, c := range t {
			col := int(m.class[c])
			next := m.delta[int(s)*cols+col]
			if next < 0 {
				next = newState()
				m.delta[int(s)*cols+col] = next
			}
			s = next
		}
		m.out[s] = append(m.out[s], int32(i))
	}
	// Breadth first: fail links become table entries, outputs gather their suffixes'.
	fail := make([]int32, len(m.out))
	queue := make([]int32, 0, len(m.out))
	for col := range cols {
		if next := m.delta[col]; next > 0 {
			fail[next] = 0
			queue = append(queue, next)
		} else {
			m.delta[col] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for col := range cols {
			next := m.delta[int(s)*cols+col]
			if next < 0 {
				m.delta[int(s)*cols+col] = m.delta[int(fail[s])*cols+col]
				continue
			}
			fail[next] = m.delta[int(fail[s])*cols+col]
			queue = append(queue, next)
		}
	}
	m.offsets = make([]int32, len(m.delta))
	for i, next := range m.delta {
		m.offsets[i] = next * int32(cols)
	}
	m.hit = make([]bool, len(m.delta))
	for s, o := range m.out {
		m.hit[s*cols] = len(o) > 0
	}
	return m
}

// scan returns the spans of b that hold a form.
func (m *machine) scan(b []byte, forms []form) []span {
	var (
		spans []span
		ring  [ringSize]int  // positions of the last kept bytes
		pairs [ringSize]bool // for each, whether the byte after it is the second of an escape pair
		n     int            // kept bytes fed
		off   int32          // state * width
		pair  bool           // b[i] is the second byte of an escape pair
		delta = m.offsets
		hit   = m.hit
		class = &m.class
	)
	for i := 0; i < len(b); i++ {
		c := b[i]
		next := false
		if special[c] {
			switch {
			case pair:
			case c != '\\':
				continue // whitespace
			case i+1 < len(b) && (b[i+1] == 'n' || b[i+1] == 'r' || b[i+1] == 't'):
				i++
				continue
			case i+1 < len(b):
				next = true
			}
		}
		pair = next
		ring[n&(ringSize-1)], pairs[n&(ringSize-1)] = i, next
		n++
		off = delta[int(off)+int(class[c])]
		if hit[off] {
			spans = m.hits(b, forms, off/int32(m.width), n, &ring, &pairs, spans)
		}
	}
	return spans
}

func (m *machine) hits(b []byte, forms []form, s int32, n int, ring *[ringSize]int, pairs *[ringSize]bool, spans []span) []span {
	for _, fi := range m.out[s] {
		f := &forms[fi]
		k := (n - f.trig) & (ringSize - 1)
		start := ring[k]
		end, ok := f.match(b, start, pairs[k])
		if !ok {
			continue
		}
		switch f.kind {
		case b64std:
			start, end = widen(b, start, end, &inStd)
		case b64url:
			start, end = widen(b, start, end, &inURL)
		}
		start, end = escapeBounds(b, start, end)
		spans = append(spans, span{start, end, f.with})
	}
	return spans
}

// match checks the whole form at start, a kept byte (pair: the byte after it is the second of an
// escape pair); end is just past the form.
func (f *form) match(b []byte, start int, pair bool) (int, bool) {
	if f.kind == exact {
		if bytes.HasPrefix(b[start:], f.raw) {
			return start + len(f.raw), true
		}
		return 0, false
	}
	i := start
	for k, c := range f.raw {
		if k > 0 {
			if i, pair = kept(b, i+1, pair); i >= len(b) {
				return 0, false
			}
		}
		got := b[i]
		if f.kind == folded {
			got = foldByte[got]
		}
		if got != c {
			return 0, false
		}
	}
	return i + 1, true
}

// widen takes in the up to three alphabet characters each side of a base64 match that mix the
// secret's bits with its neighbours', and the padding after. A query-escaped %2B, %2F or %3D counts
// as one character.
func widen(b []byte, start, end int, in *[256]bool) (int, int) {
	for k := 0; k < 3 && start > 0; k++ {
		switch {
		case in[b[start-1]]:
			start--
		case start >= 3 && pctB64(b[start-3:start]):
			start -= 3
		default:
			k = 3
		}
	}
	for k := 0; k < 3 && end < len(b); k++ {
		switch {
		case in[b[end]]:
			end++
		case end+3 <= len(b) && pctB64(b[end:end+3]) && !bytes.EqualFold(b[end:end+3], []byte("%3D")):
			end += 3
		default:
			k = 3
		}
	}
	for k := 0; k < 2 && end < len(b); k++ {
		switch {
		case b[end] == '=':
			end++
		case end+3 <= len(b) && bytes.EqualFold(b[end:end+3], []byte("%3D")):
			end += 3
		default:
			k = 2
		}
	}
	return start, end
}

// pctB64 reports whether p is %2B, %2F or %3D in either case.
func pctB64(p []byte) bool {
	return p[0] == '%' && ((p[1] == '2' && (p[2]|0x20 == 'b' || p[2]|0x20 == 'f')) || (p[1] == '3' && p[2]|0x20 == 'd'))
}

// escapeBounds moves start and end out of any JSON escape sequence (\x or \uXXXX) they fall inside,
// so a replacement never leaves half an escape behind.
func escapeBounds(b []byte, start, end int) (int, int) {
	if p, ok := escapeAround(b, start); ok {
		start = p
	}
	if p, ok := escapeAround(b, end); ok {
		end = p + escapeLen(b, p)
	}
	return start, end
}

// escapeAround finds an escape that starts before i and ends after it.
func escapeAround(b []byte, i int) (int, bool) {
	for p := i - 1; p >= 0 && p >= i-5; p-- {
		if b[p] != '\\' {
			continue
		}
		run := 0
		for q := p; q >= 0 && b[q] == '\\'; q-- {
			run++
		}
		if run%2 == 0 {
			return 0, false // b[p] is an escaped backslash, the end of an escape before i
		}
		if p+escapeLen(b, p) > i {
			return p, true
		}
		return 0, false
	}
	return 0, false
}

func escapeLen(b []byte, p int) int {
	if p+1 < len(b) && b[p+1] == 'u' {
		return min(6, len(b)-p)
	}
	return min(2, len(b)-p)
}
