package auditsink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/nats-io/nats.go"
)

// NATS delivers each batch as one JetStream message on a subject: acknowledged when the server has
// stored it (PubAck). The batch id is the message id (Nats-Msg-Id), so a batch re-sent after a crash
// inside the stream's duplicate window is dropped by the server. The stream is created on first use
// when no stream holds the subject.
type NATS struct {
	nc      *nats.Conn
	js      nats.JetStreamContext
	subject string
}

var subjectRE = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)

// NewNATS connects to url and makes sure a JetStream stream stores subject.
func NewNATS(ctx context.Context, url, subject string) (*NATS, error) {
	if !subjectRE.MatchString(subject) {
		return nil, fmt.Errorf("AUDIT_SINK_NATS_SUBJECT: %q is not a plain subject (tokens of letters, digits, - and _ joined by dots)", subject)
	}
	nc, err := nats.Connect(url, nats.Name("workbench-audit-sink"), nats.Timeout(5*time.Second), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("audit sink: connect to NATS: %w", err)
	}
	js, err := nc.JetStream()
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("audit sink: NATS JetStream: %w", err)
	}
	if _, err := js.StreamNameBySubject(subject, nats.Context(ctx)); errors.Is(err, nats.ErrNoMatchingStream) {
		name := "WORKBENCH_AUDIT_" + regexp.MustCompile(`[^A-Za-z0-9_-]`).ReplaceAllString(subject, "_")
		_, err = js.AddStream(&nats.StreamConfig{Name: name, Subjects: []string{subject}, Storage: nats.FileStorage,
			Duplicates: 10 * time.Minute}, nats.Context(ctx))
		if errors.Is(err, nats.ErrStreamNameAlreadyInUse) {
			err = nil
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("audit sink: create the stream for %s: %w", subject, err)
		}
	} else if err != nil {
		nc.Close()
		return nil, fmt.Errorf("audit sink: find the stream of %s (is JetStream on?): %w", subject, err)
	}
	return &NATS{nc: nc, js: js, subject: subject}, nil
}

// Deliver implements Destination.
func (n *NATS) Deliver(ctx context.Context, b Batch) error {
	body, err := json.Marshal(b)
	if err != nil {
		return err
	}
	msg := nats.NewMsg(n.subject)
	msg.Data = body
	msg.Header.Set(nats.MsgIdHdr, b.ID)
	if _, err := n.js.PublishMsg(msg, nats.Context(ctx)); err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	return nil
}

// Close closes the connection.
func (n *NATS) Close() { n.nc.Close() }
