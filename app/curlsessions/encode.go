package curlsessions

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/curlsession"
)

// The two records written for every proxied request are encoded here field by field rather than by
// encoding/json's reflection, which cost about as much as the rest of the handler's own work. The
// bytes are exactly what json.Marshal writes for the same value (the same fields in the same order,
// omitempty, escaping and time format): the tests compare the two on every field, and fail when the
// domain types gain a field these encoders do not know.

// encodeForwarded is json.Marshal(ev).
func encodeForwarded(ev curlsession.RequestForwarded) ([]byte, error) {
	b := make([]byte, 0, 320)
	b = appendUUIDField(b, `{"request_id":`, ev.RequestID)
	b = appendUUIDField(b, `,"session_id":`, ev.SessionID)
	b = appendUUIDField(b, `,"user_id":`, ev.UserID)
	b = appendStringField(b, `,"integration":`, ev.Integration)
	b = appendStringField(b, `,"method":`, ev.Method)
	b = appendStringField(b, `,"path":`, ev.Path)
	b = appendKeys(b, ev.QueryKeys)
	if ev.ConnectionVersion != 0 {
		b = strconv.AppendInt(append(b, `,"connection_version":`...), ev.ConnectionVersion, 10)
	}
	if ev.Account != "" {
		b = appendStringField(b, `,"account":`, ev.Account)
	}
	return appendTimeField(b, `,"at":`, ev.At)
}

// encodeProxied is json.Marshal(ev).
func encodeProxied(ev curlsession.RequestProxied) ([]byte, error) {
	b := make([]byte, 0, 400)
	b = appendUUIDField(b, `{"request_id":`, ev.RequestID)
	b = appendUUIDField(b, `,"session_id":`, ev.SessionID)
	b = appendUUIDField(b, `,"user_id":`, ev.UserID)
	b = appendStringField(b, `,"integration":`, ev.Integration)
	b = appendStringField(b, `,"method":`, ev.Method)
	b = appendStringField(b, `,"path":`, ev.Path)
	b = appendKeys(b, ev.QueryKeys)
	b = strconv.AppendInt(append(b, `,"status":`...), int64(ev.Status), 10)
	if ev.ErrorCode != "" {
		b = appendStringField(b, `,"error_code":`, ev.ErrorCode)
	}
	b = strconv.AppendInt(append(b, `,"request_bytes":`...), ev.RequestBytes, 10)
	b = strconv.AppendInt(append(b, `,"response_bytes":`...), ev.ResponseBytes, 10)
	b = strconv.AppendInt(append(b, `,"duration_ms":`...), ev.DurationMS, 10)
	if ev.ConnectionVersion != 0 {
		b = strconv.AppendInt(append(b, `,"connection_version":`...), ev.ConnectionVersion, 10)
	}
	if ev.Account != "" {
		b = appendStringField(b, `,"account":`, ev.Account)
	}
	return appendTimeField(b, `,"at":`, ev.At)
}

func appendUUIDField(b []byte, name string, id uuid.UUID) []byte {
	const hex = "0123456789abcdef"
	b = append(b, name...)
	b = append(b, '"')
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[c>>4], hex[c&0xf])
	}
	return append(b, '"')
}

func appendStringField(b []byte, name, s string) []byte {
	return appendString(append(b, name...), s)
}

// appendString writes s as a JSON string. Text that encoding/json writes as it is (printable ASCII
// but for the quote, the backslash and the HTML characters it escapes) is copied; anything else, rare
// in a method, a path or an integration name, is left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendKeys writes the query_keys field (omitempty: nothing for none).
func appendKeys(b []byte, keys []string) []byte {
	if len(keys) == 0 {
		return b
	}
	b = append(b, `,"query_keys":[`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
	}
	return append(b, ']')
}

func appendTimeField(b []byte, name string, t time.Time) ([]byte, error) {
	ts, err := t.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b = append(b, name...)
	b = append(b, ts...)
	return append(b, '}'), nil
}
