package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON-RPC 2.0 error codes used by the endpoint.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeUnauthorized   = -32001
	// CodeRequestCancelled answers a POST whose request the client cancelled when the POST cannot be
	// an empty stream (as LSP numbers it; MCP sends no response to a cancelled request).
	CodeRequestCancelled = -32800
)

// request is an incoming JSON-RPC message: a request (id and method), a notification (method, no id)
// or a response to something the server sent (result or error, no method). Absent members are nil.
type request struct {
	JSONRPC json.RawMessage
	ID      json.RawMessage
	Method  string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   json.RawMessage
	// Invalid, when set, says why the message is not a valid JSON-RPC message (-32600).
	Invalid string
}

func (r *request) isNotification() bool { return r.Method != "" && len(r.ID) == 0 }
func (r *request) isResponse() bool     { return r.Method == "" && (len(r.Result) > 0 || len(r.Error) > 0) }

// plainInteger reports whether b is a JSON number of digits alone without a leading zero (0 itself
// included), which json.Number accepts.
func plainInteger(b []byte) bool {
	if len(b) == 0 || len(b) > 1 && b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// validID reports whether id is a JSON string or number (JSON-RPC 2.0; MCP forbids null ids).
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"':
		var s string
		return json.Unmarshal(id, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if plainInteger(id) {
			return true // the common id: no need to decode
		}
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

// envelope names the members of a JSON-RPC message. They are matched exactly: a member whose name
// differs from one of them only by case is refused, because encoding/json would fold it onto the
// real member and a proxy reading exact keys would see another request than the one run.
var envelope = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// errParse is a body that is not JSON at all (-32700).
var errParse = errors.New("parse error")

// decodeBody reads a POST body (UTF-8 JSON): a single message, or (batch) an array of them. Every object anywhere
// in the body is checked for duplicate member names; a message holding one, or a case-variant of an
// envelope member, or that is not an object, comes back with Invalid set. Only a body that is not
// well-formed JSON (or holds more than one value) is errParse.
//
// json.Valid checks the syntax first; then one walk over the bytes, which may therefore assume
// well-formed JSON, finds the members and their raw values. It allocates only for member names with
// escapes and for objects of more than 16 members, so the strictness costs about as much as the plain
// struct decoding it replaces.
func decodeBody(body []byte) (msgs []request, batch bool, err error) {
	// MCP messages are UTF-8; encoding/json would turn invalid bytes into U+FFFD, so two different
	// member names could decode as one.
	if !utf8.Valid(body) || !json.Valid(body) {
		return nil, false, errParse
	}
	s := scanner{b: body}
	s.ws()
	if s.b[s.i] != '[' {
		return []request{s.message()}, false, nil
	}
	s.i++
	msgs = []request{}
	s.ws()
	if s.b[s.i] == ']' {
		return msgs, true, nil
	}
	for {
		s.ws()
		msgs = append(msgs, s.message())
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == ']' {
			return msgs, true, nil
		}
	}
}

// scanner walks well-formed JSON (json.Valid said so) byte by byte.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str consumes a string at s.i and returns its contents between the quotes, and whether it holds
// an escape.
func (s *scanner) str() (content []byte, escaped bool) {
	s.i++ // the opening quote
	start := s.i
	for {
		switch s.b[s.i] {
		case '\\':
			escaped = true
			s.i += 2
		case '"':
			s.i++
			return s.b[start : s.i-1], escaped
		default:
			s.i++
		}
	}
}

// key consumes a member name and the colon after it, and returns the name unescaped.
func (s *scanner) key() []byte {
	start := s.i
	k, escaped := s.str()
	if escaped {
		var v string
		json.Unmarshal(s.b[start:s.i], &v) //nolint:errcheck // json.Valid vouched for it
		k = []byte(v)
	}
	s.ws()
	s.i++ // the colon
	s.ws()
	return k
}

// value consumes one value and returns the first duplicate member name found inside it.
func (s *scanner) value() string {
	dup := ""
	switch s.b[s.i] {
	case '{':
		s.i++
		var seen keySet
		s.ws()
		if s.b[s.i] == '}' {
			s.i++
			return ""
		}
		for {
			s.ws()
			k := s.key()
			if seen.add(k) && dup == "" {
				dup = string(k)
			}
			if d := s.value(); dup == "" {
				dup = d
			}
			s.ws()
			c := s.b[s.i]
			s.i++
			if c == '}' {
				return dup
			}
		}
	case '[':
		s.i++
		s.ws()
		if s.b[s.i] == ']' {
			s.i++
			return ""
		}
		for {
			s.ws()
			if d := s.value(); dup == "" {
				dup = d
			}
			s.ws()
			c := s.b[s.i]
			s.i++
			if c == ']' {
				return dup
			}
		}
	case '"':
		s.str()
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return ""
			}
			s.i++
		}
	}
	return ""
}

// message consumes one message value.
func (s *scanner) message() request {
	var m request
	if s.b[s.i] != '{' {
		if dup := s.value(); dup != "" {
			m.Invalid = "duplicate member " + quoteName(dup)
		} else {
			m.Invalid = "a JSON-RPC message must be an object"
		}
		return m
	}
	s.i++
	var seen keySet
	s.ws()
	if s.b[s.i] == '}' {
		s.i++
		return m
	}
	for {
		s.ws()
		key := s.key()
		if seen.add(key) && m.Invalid == "" {
			m.Invalid = "duplicate member " + quoteName(string(key))
		}
		start := s.i
		if dup := s.value(); dup != "" && m.Invalid == "" {
			m.Invalid = "duplicate member " + quoteName(dup)
		}
		raw := json.RawMessage(s.b[start:s.i])
		switch string(key) {
		case "jsonrpc":
			m.JSONRPC = raw
		case "id":
			m.ID = raw
		case "method":
			if raw[0] == '"' && !bytes.ContainsRune(raw, '\\') {
				m.Method = string(raw[1 : len(raw)-1])
			} else if err := json.Unmarshal(raw, &m.Method); err != nil && m.Invalid == "" {
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
				if m.Invalid == "" && strings.EqualFold(string(key), name) {
					m.Invalid = fmt.Sprintf("member %s is not %q: JSON-RPC member names are case-sensitive", quoteName(string(key)), name)
				}
			}
		}
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == '}' {
			return m
		}
	}
}

// quoteName quotes a member name for an error message, cut at 64 bytes: the answer never echoes a
// whole oversized name back.
func quoteName(name string) string {
	if len(name) > 64 {
		return strconv.Quote(strings.ToValidUTF8(name[:64], "")) + "…"
	}
	return strconv.Quote(name)
}

// keySet holds the member names of one object: in place while few, in a map beyond.
type keySet struct {
	few  [16][]byte
	n    int
	many map[string]struct{}
}

// add records key and reports whether it was already there.
func (s *keySet) add(key []byte) bool {
	if s.many != nil {
		if _, ok := s.many[string(key)]; ok {
			return true
		}
		s.many[string(key)] = struct{}{}
		return false
	}
	for _, k := range s.few[:s.n] {
		if bytes.Equal(k, key) {
			return true
		}
	}
	if s.n < len(s.few) {
		s.few[s.n] = key
		s.n++
		return false
	}
	s.many = make(map[string]struct{}, 2*len(s.few))
	for _, k := range s.few {
		s.many[string(k)] = struct{}{}
	}
	s.many[string(key)] = struct{}{}
	return false
}

// members decodes a params object into its members, matched exactly by name (a map never folds
// case, unlike decoding into a struct). A non-object is an error.
func members(params json.RawMessage) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil || m == nil {
		return nil, errors.New("params must be an object")
	}
	return m, nil
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

var nullID = json.RawMessage("null")

func errorResponse(id json.RawMessage, code int, msg string) response {
	if len(id) == 0 {
		id = nullID
	}
	return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}
}
