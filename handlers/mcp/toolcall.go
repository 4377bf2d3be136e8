package mcp

import (
	"bytes"
	"encoding/json"
)

// toolCallParams reads tools/call's params: the tool's name and its raw arguments (nil when absent).
// ok is false when params is not an object or has no non-empty string name. It walks params, which
// decodeBody has already checked (valid JSON, no repeated member), instead of decoding them into a map,
// which scanned and copied the arguments once more on every call.
func toolCallParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	s := scanner{b: params}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return "", nil, false
	}
	s.i++
	s.ws()
	if s.b[s.i] == '}' {
		return "", nil, false
	}
	for {
		s.ws()
		key := s.key()
		start := s.i
		s.value()
		raw := s.b[start:s.i]
		switch string(key) {
		case "name":
			if raw[0] != '"' {
				return "", nil, false
			}
			if bytes.IndexByte(raw, '\\') < 0 {
				name = string(raw[1 : len(raw)-1])
			} else if err := json.Unmarshal(raw, &name); err != nil {
				return "", nil, false
			}
		case "arguments":
			args = raw
		}
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == '}' {
			return name, args, name != ""
		}
	}
}
