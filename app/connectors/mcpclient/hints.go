package mcpclient

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"
)

// The SDK decodes a listed tool's readOnlyHint into a plain bool, so a listing that gave none reads
// false. The spec says an absent hint decides nothing (connectors.md, default-off rules): listingHints
// reads the tools/list answers as they pass through the transport and notes, per tool name, whether its
// annotations carried readOnlyHint at all.

// listingHints is one session's record: tool name → readOnlyHint present in the last listing.
type listingHints struct {
	mu      sync.Mutex
	present map[string]bool
	// tasks is each tool's execution.taskSupport (2025-11-25), which the SDK does not decode.
	tasks map[string]string
}

func (h *listingHints) taskSupport(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tasks[name]
}

func (h *listingHints) readOnlyGiven(name string) (given, known bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	given, known = h.present[name]
	return given, known
}

func (h *listingHints) note(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string                     `json:"name"`
			Annotations map[string]json.RawMessage `json:"annotations"`
			Execution   struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.present == nil {
		h.present = map[string]bool{}
	}
	if h.tasks == nil {
		h.tasks = map[string]string{}
	}
	for _, t := range r.Tools {
		raw, ok := t.Annotations["readOnlyHint"]
		h.present[t.Name] = ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
		h.tasks[t.Name] = t.Execution.TaskSupport
	}
}

// isListing reports whether req is a tools/list request (its body read through GetBody, which the SDK's
// requests have).
func isListing(req *http.Request) bool {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return false
	}
	b, err := req.GetBody()
	if err != nil {
		return false
	}
	defer b.Close()
	var m struct {
		Method string `json:"method"`
	}
	data, _ := io.ReadAll(io.LimitReader(b, 64<<10))
	return json.Unmarshal(data, &m) == nil && m.Method == "tools/list"
}

// watchListing wraps a listing's response body so that each JSON-RPC response in it (a JSON body or
// the events of a stream) is noted before the SDK gets its last byte.
func watchListing(resp *http.Response, h *listingHints) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "application/json" && ct != "text/event-stream" {
		return
	}
	resp.Body = &listingBody{rc: resp.Body, hints: h, sse: ct == "text/event-stream"}
}

type listingBody struct {
	rc    io.ReadCloser
	hints *listingHints
	sse   bool
	buf   []byte
	from  int // where events looks for the next event's end
	done  bool
}

func (b *listingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.done {
		b.buf = append(b.buf, p[:n]...)
		if len(b.buf) > 2*MaxListingBytes {
			b.done, b.buf = true, nil // the pool refuses such a listing anyway
		} else if b.sse {
			b.events()
		} else if err == io.EOF {
			b.message(b.buf)
			b.done, b.buf = true, nil
		}
	}
	return n, err
}

// events notes each complete event in the buffer (an event ends at a blank line).
func (b *listingBody) events() {
	for {
		end, next := eventEnd(b.buf, b.from)
		if end < 0 {
			b.from = max(0, len(b.buf)-3)
			return
		}
		var data []byte
		for _, line := range bytes.Split(bytes.ReplaceAll(b.buf[:end], []byte("\r\n"), []byte("\n")), []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			}
		}
		b.message(data)
		b.buf, b.from = append([]byte(nil), b.buf[next:]...), 0
	}
}

// eventEnd finds the first blank line in buf at or after from: the event's end and where the next
// one starts, or -1.
func eventEnd(buf []byte, from int) (end, next int) {
	for i := from; i < len(buf); i++ {
		if buf[i] != '\n' {
			continue
		}
		switch {
		case i+1 < len(buf) && buf[i+1] == '\n':
			return i, i + 2
		case i+2 < len(buf) && buf[i+1] == '\r' && buf[i+2] == '\n':
			return i, i + 3
		}
	}
	return -1, 0
}

func (b *listingBody) message(data []byte) {
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &m) == nil && len(m.Result) > 0 {
		b.hints.note(m.Result)
	}
}

func (b *listingBody) Close() error { return b.rc.Close() }
