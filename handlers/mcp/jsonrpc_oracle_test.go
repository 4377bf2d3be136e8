package mcp

// The reference decoder: the same rules as decodeBody, written over encoding/json's token stream,
// slower but plainly right. FuzzDecodeBody checks the byte scanner against it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeBody reads a POST body in one pass of a streaming decoder: a single message, or (batch) an
// array of them. Every object anywhere in the body is checked for duplicate member names; a message
// holding one, or a case-variant of an envelope member, or that is not an object, comes back with
// Invalid set. Only a body that is not well-formed JSON (or holds more than one value) is errParse.
func decodeBodyTokens(body []byte) (msgs []request, batch bool, err error) {
	if !utf8.Valid(body) {
		return nil, false, errParse
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, false, errParse
	}
	switch tok {
	case json.Delim('['):
		batch = true
		msgs = []request{}
		for dec.More() {
			m, err := decodeMessageTokens(dec, body, nil)
			if err != nil {
				return nil, true, errParse
			}
			msgs = append(msgs, m)
		}
		if _, err := dec.Token(); err != nil { // the closing ]
			return nil, true, errParse
		}
	default:
		m, err := decodeMessageTokens(dec, body, tok)
		if err != nil {
			return nil, false, errParse
		}
		msgs = []request{m}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, batch, errParse
	}
	return msgs, batch, nil
}

// decodeMessage reads one message value; first is its first token when already read.
func decodeMessageTokens(dec *json.Decoder, body []byte, first json.Token) (request, error) {
	var m request
	tok := first
	if tok == nil {
		var err error
		if tok, err = dec.Token(); err != nil {
			return m, err
		}
	}
	if tok != json.Delim('{') {
		if dup, err := skipRestTokens(dec, tok); err != nil {
			return m, err
		} else if dup != "" {
			m.Invalid = "duplicate member " + quoteName(dup)
			return m, nil
		}
		m.Invalid = "a JSON-RPC message must be an object"
		return m, nil
	}
	var seen tokenKeySet
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return m, err
		}
		key, _ := kt.(string)
		if seen.add(key) && m.Invalid == "" {
			m.Invalid = "duplicate member " + quoteName(key)
		}
		start := dec.InputOffset()
		dup, err := skipValueTokens(dec)
		if err != nil {
			return m, err
		}
		if dup != "" && m.Invalid == "" {
			m.Invalid = "duplicate member " + quoteName(dup)
		}
		raw := rawValueTokens(body[start:dec.InputOffset()])
		switch key {
		case "jsonrpc":
			m.JSONRPC = raw
		case "id":
			m.ID = raw
		case "method":
			if err := json.Unmarshal(raw, &m.Method); err != nil && m.Invalid == "" {
				m.Invalid = `"method" must be a string`
			}
		case "params":
			m.Params = raw
		case "result":
			m.Result = raw
		case "error":
			m.Error = raw
		default:
			for _, name := range envelope {
				if strings.EqualFold(key, name) && m.Invalid == "" {
					m.Invalid = fmt.Sprintf("member %s is not %q: JSON-RPC member names are case-sensitive", quoteName(key), name)
				}
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing }
		return m, err
	}
	return m, nil
}

// rawValue is the text of one value as the decoder consumed it: the separator before it trimmed.
func rawValueTokens(b []byte) json.RawMessage {
	b = bytes.TrimLeft(b, " \t\r\n")
	b = bytes.TrimPrefix(b, []byte(":"))
	return bytes.TrimSpace(b)
}

// skipValue consumes one value and returns the first duplicate member name found inside it.
func skipValueTokens(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	return skipRestTokens(dec, tok)
}

// skipRest consumes the rest of the value that began with tok.
func skipRestTokens(dec *json.Decoder, tok json.Token) (string, error) {
	dup := ""
	switch tok {
	case json.Delim('{'):
		var seen tokenKeySet
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			key, _ := kt.(string)
			if seen.add(key) && dup == "" {
				dup = key
			}
			d, err := skipValueTokens(dec)
			if err != nil {
				return "", err
			}
			if dup == "" {
				dup = d
			}
		}
		_, err := dec.Token()
		return dup, err
	case json.Delim('['):
		for dec.More() {
			d, err := skipValueTokens(dec)
			if err != nil {
				return "", err
			}
			if dup == "" {
				dup = d
			}
		}
		_, err := dec.Token()
		return dup, err
	}
	return "", nil
}

// tokenKeySet holds the member names of one object: a slice while small, a map beyond.
type tokenKeySet struct {
	few  []string
	many map[string]struct{}
}

// add records key and reports whether it was already there.
func (s *tokenKeySet) add(key string) bool {
	if s.many != nil {
		if _, ok := s.many[key]; ok {
			return true
		}
		s.many[key] = struct{}{}
		return false
	}
	for _, k := range s.few {
		if k == key {
			return true
		}
	}
	if len(s.few) < 16 {
		s.few = append(s.few, key)
		return false
	}
	s.many = make(map[string]struct{}, 32)
	for _, k := range s.few {
		s.many[k] = struct{}{}
	}
	s.many[key] = struct{}{}
	return false
}

func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping","method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"\u0069d":2}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"a":[1,{"b":2,"b":3}]},"x",null]`,
		`{"jsonrpc":"2.0","id":-1.5e3,"method":"t","params":{"s":"a\"b\\","n":[true,false,null,{}],"e":[]}}`,
		`  [ ]  `,
		`{"method":"\u0070ing","id":"\"","jsonrpc":"2.0"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gotBatch, gotErr := decodeBody(body)
		want, wantBatch, wantErr := decodeBodyTokens(body)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: parse error %v, reference %v", body, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if gotBatch != wantBatch || len(got) != len(want) {
			t.Fatalf("%q: batch %v/%d, reference %v/%d", body, gotBatch, len(got), wantBatch, len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Invalid != w.Invalid || g.Method != w.Method || !bytes.Equal(g.ID, w.ID) || !bytes.Equal(g.JSONRPC, w.JSONRPC) ||
				!bytes.Equal(g.Params, w.Params) || !bytes.Equal(g.Result, w.Result) || !bytes.Equal(g.Error, w.Error) {
				t.Fatalf("%q message %d:\n got %+v\nwant %+v", body, i, g, w)
			}
		}
	})
}
