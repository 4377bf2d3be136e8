package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JSON-RPC 2.0 error codes used by the endpoint.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeUnauthorized   = -32001
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

// decodeBody reads a POST body in one pass of a streaming decoder: a single message, or (batch) an
// array of them. Every object anywhere in the body is checked for duplicate member names; a message
// holding one, or a case-variant of an envelope member, or that is not an object, comes back with
// Invalid set. Only a body that is not well-formed JSON (or holds more than one value) is errParse.
func decodeBody(body []byte) (msgs []request, batch bool, err error) {
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
			m, err := decodeMessage(dec, body, nil)
			if err != nil {
				return nil, true, errParse
			}
			msgs = append(msgs, m)
		}
		if _, err := dec.Token(); err != nil { // the closing ]
			return nil, true, errParse
		}
	default:
		m, err := decodeMessage(dec, body, tok)
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
func decodeMessage(dec *json.Decoder, body []byte, first json.Token) (request, error) {
	var m request
	tok := first
	if tok == nil {
		var err error
		if tok, err = dec.Token(); err != nil {
			return m, err
		}
	}
	if tok != json.Delim('{') {
		if dup, err := skipRest(dec, tok); err != nil {
			return m, err
		} else if dup != "" {
			m.Invalid = fmt.Sprintf("duplicate member %q", dup)
			return m, nil
		}
		m.Invalid = "a JSON-RPC message must be an object"
		return m, nil
	}
	var seen keySet
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return m, err
		}
		key, _ := kt.(string)
		if seen.add(key) && m.Invalid == "" {
			m.Invalid = fmt.Sprintf("duplicate member %q", key)
		}
		start := dec.InputOffset()
		dup, err := skipValue(dec)
		if err != nil {
			return m, err
		}
		if dup != "" && m.Invalid == "" {
			m.Invalid = fmt.Sprintf("duplicate member %q", dup)
		}
		raw := rawValue(body[start:dec.InputOffset()])
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
					m.Invalid = fmt.Sprintf("member %q is not %q: JSON-RPC member names are case-sensitive", key, name)
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
func rawValue(b []byte) json.RawMessage {
	b = bytes.TrimLeft(b, " \t\r\n")
	b = bytes.TrimPrefix(b, []byte(":"))
	return bytes.TrimSpace(b)
}

// skipValue consumes one value and returns the first duplicate member name found inside it.
func skipValue(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	return skipRest(dec, tok)
}

// skipRest consumes the rest of the value that began with tok.
func skipRest(dec *json.Decoder, tok json.Token) (string, error) {
	dup := ""
	switch tok {
	case json.Delim('{'):
		var seen keySet
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", err
			}
			key, _ := kt.(string)
			if seen.add(key) && dup == "" {
				dup = key
			}
			d, err := skipValue(dec)
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
			d, err := skipValue(dec)
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

// keySet holds the member names of one object: a slice while small, a map beyond.
type keySet struct {
	few  []string
	many map[string]struct{}
}

// add records key and reports whether it was already there.
func (s *keySet) add(key string) bool {
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
