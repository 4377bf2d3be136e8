package plugins

import (
	"context"
	"sync"
)

// auditNoteKey keys the AuditNote of a tool call in its context.
type auditNoteKey struct{}

// AuditNote collects what a Go handler reports about its call for the call's audit record: the host it
// reached (a browser tool's URL host). Never content.
type AuditNote struct {
	mu     sync.Mutex
	target string
}

// WithAuditNote returns ctx carrying a new AuditNote, which the caller reads once the handler returns.
func WithAuditNote(ctx context.Context) (context.Context, *AuditNote) {
	n := &AuditNote{}
	return context.WithValue(ctx, auditNoteKey{}, n), n
}

// NoteTarget records the host a call reached, when its context carries an AuditNote (at most 255 bytes).
func NoteTarget(ctx context.Context, host string) {
	if n, ok := ctx.Value(auditNoteKey{}).(*AuditNote); ok {
		if len(host) > 255 {
			host = host[:255]
		}
		n.mu.Lock()
		n.target = host
		n.mu.Unlock()
	}
}

// Target is the host the handler noted, or "".
func (n *AuditNote) Target() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.target
}
