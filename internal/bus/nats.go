package bus

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
)

// NATS JetStream transport.
//
// Each topic is one JetStream stream (named after its subject with dots made underscores) whose one
// subject is the topic under the deployment's prefix (Options.NATSPrefix, BUS_NATS_PREFIX): the
// leading "workbench." of a topic is replaced by "<prefix>.", so two deployments with different
// prefixes share one NATS server without seeing each other's messages, and the default prefix keeps
// the subject and stream names the bus used before it had one. The stream keeps messages for
// natsMaxAge, and drops a message whose id (the event id) it has seen within natsDuplicateWindow, so a
// relay that republishes after a crash does not duplicate what it already sent (JetStream message
// de-duplication, the Nats-Msg-Id header).
//
// Fan-out, not competing consumers: every subscription gets a JetStream consumer of its own and no
// queue group. Without Options.Name it is an ephemeral push consumer that delivers only new messages
// (DeliverNew) and is deleted when the subscription ends. With a name it is a durable consumer named
// NAME_TOPIC, created here (not by the client library, which would delete it on unsubscribe) with
// DeliverAll, so a replica that restarts resumes after its last acknowledged message; it is removed by
// the server after natsMaxAge without a subscriber, since by then its position has left the stream.
// Acknowledgement is explicit, after the handler returns, so delivery is at least once. A consumer
// has at most one message unacknowledged (MaxAckPending 1): a message whose handler failed is
// delivered again before any later one, which keeps publish order even across retries, at the cost
// of one round trip per message (watermill acknowledges synchronously anyway).
const (
	natsMaxAge          = 7 * 24 * time.Hour
	natsDuplicateWindow = 2 * time.Minute
	// natsAckWait is how long JetStream waits for an acknowledgement before delivering a message
	// again. It is short because handlers must be quick, and because a message that reached a
	// subscription while it was shutting down is discarded unacknowledged: a named replica that
	// restarts resumes with it only after this wait (consumers hold one message at a time).
	natsAckWait = 5 * time.Second
)

type natsBus struct {
	url    string
	prefix string
	wlog   watermill.LoggerAdapter
	nc     *nats.Conn // the publisher's connection, also used to manage streams and consumers
	js     nats.JetStreamContext
	pub    *wmnats.Publisher

	mu      sync.Mutex
	streams map[string]bool // topics whose stream is known to exist
}

func natsOptions() []nats.Option {
	return []nats.Option{
		nats.Name("workbench-bus"),
		nats.Timeout(5 * time.Second),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
	}
}

// openNATS connects the publisher. reconnected is called each time that connection is back after
// losing the server, so that a relay waiting out its backoff publishes again at once.
func openNATS(ctx context.Context, url, prefix string, wlog watermill.LoggerAdapter, reconnected func()) (*natsBus, error) {
	// While the connection is down a publish fails at once instead of waiting in the client's
	// reconnect buffer: the relay publishes again from its checkpoint when the connection is back
	// (reconnected wakes it), and a buffered copy, flushed before the server's JetStream has
	// recovered its streams, would be lost anyway.
	opts := append(natsOptions(), nats.ReconnectBufSize(-1), nats.ReconnectHandler(func(*nats.Conn) { reconnected() }))
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS: %w", err)
	}
	js, err := nc.JetStream()
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS JetStream: %w", err)
	}
	// Fail now, with a clear cause, when the server runs without JetStream.
	if _, err := js.AccountInfo(nats.Context(ctx)); err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS JetStream is not available on this server (start nats-server with -js): %w", err)
	}
	pub, err := wmnats.NewPublisherWithNatsConn(nc, wmnats.PublisherPublishConfig{
		Marshaler:         &wmnats.NATSMarshaler{},
		SubjectCalculator: wmnats.DefaultSubjectCalculator,
		JetStream:         wmnats.JetStreamConfig{TrackMsgId: true},
	}, wlog)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("NATS publisher: %w", err)
	}
	return &natsBus{url: url, prefix: prefix, wlog: wlog, nc: nc, js: js, pub: pub, streams: map[string]bool{}}, nil
}

var notStreamChar = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// subject is topic's NATS subject: the topic's "workbench" namespace made the deployment's prefix. A
// topic outside that namespace is its own subject.
func (n *natsBus) subject(topic string) string {
	if rest, ok := strings.CutPrefix(topic, DefaultNATSPrefix+"."); ok {
		return n.prefix + "." + rest
	}
	return topic
}

// natsStreamName turns a topic into a stream name (stream and consumer names may not hold dots).
func natsStreamName(topic string) string { return notStreamChar.ReplaceAllString(topic, "_") }

// ensureStream creates topic's stream when it is missing, and checks that an existing one carries
// the topic's subject.
func (n *natsBus) ensureStream(ctx context.Context, topic string) error {
	n.mu.Lock()
	known := n.streams[topic]
	n.mu.Unlock()
	if known {
		return nil
	}
	name := natsStreamName(topic)
	info, err := n.js.StreamInfo(name, nats.Context(ctx))
	if errors.Is(err, nats.ErrStreamNotFound) {
		info, err = n.js.AddStream(&nats.StreamConfig{
			Name:       name,
			Subjects:   []string{topic},
			Retention:  nats.LimitsPolicy,
			Storage:    nats.FileStorage,
			MaxAge:     natsMaxAge,
			Duplicates: natsDuplicateWindow,
		}, nats.Context(ctx))
		if errors.Is(err, nats.ErrStreamNameAlreadyInUse) { // another replica created it first
			info, err = n.js.StreamInfo(name, nats.Context(ctx))
		}
	}
	if err != nil {
		return fmt.Errorf("stream %s: %w", name, err)
	}
	found := false
	for _, s := range info.Config.Subjects {
		found = found || s == topic
	}
	if !found {
		return fmt.Errorf("stream %s exists with subjects %v, not %s", name, info.Config.Subjects, topic)
	}
	n.mu.Lock()
	n.streams[topic] = true
	n.mu.Unlock()
	return nil
}

func (n *natsBus) publish(ctx context.Context, topic string, msgs []*message.Message) error {
	topic = n.subject(topic)
	if err := n.ensureStream(ctx, topic); err != nil {
		return err
	}
	// watermill's NATS publisher waits for JetStream's acknowledgement of each message in turn.
	return n.pub.Publish(topic, msgs...)
}

func (n *natsBus) subscribe(ctx context.Context, topic, name string) (<-chan *message.Message, func() error, error) {
	topic = n.subject(topic)
	if err := n.ensureStream(ctx, topic); err != nil {
		return nil, nil, err
	}
	js := wmnats.JetStreamConfig{
		// Explicit acks, sent by watermill once the handler returns; nats.go must not ack on its own.
		SubscribeOptions: []nats.SubOpt{nats.AckExplicit(), nats.ManualAck(), nats.MaxAckPending(1), nats.DeliverNew()},
	}
	if name != "" {
		durable := natsStreamName(name + "_" + topic)
		if err := n.ensureDurable(ctx, topic, durable); err != nil {
			return nil, nil, err
		}
		js = wmnats.JetStreamConfig{
			SubscribeOptions:  []nats.SubOpt{nats.AckExplicit(), nats.ManualAck(), nats.MaxAckPending(1)},
			DurableCalculator: func(string, string) string { return durable },
		}
	}
	// Each subscription has its own connection: closing the watermill subscriber drains it.
	sub, err := wmnats.NewSubscriber(wmnats.SubscriberConfig{
		URL:              n.url,
		NatsOptions:      natsOptions(),
		Unmarshaler:      &wmnats.NATSMarshaler{},
		AckWaitTimeout:   natsAckWait,
		CloseTimeout:     10 * time.Second,
		SubscribeTimeout: 10 * time.Second,
		JetStream:        js,
	}, n.wlog)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := sub.Subscribe(ctx, topic)
	if err != nil {
		_ = sub.Close()
		return nil, nil, err
	}
	return msgs, sub.Close, nil
}

// ensureDurable creates the durable push consumer a named replica resumes from, when it is missing.
func (n *natsBus) ensureDurable(ctx context.Context, topic, durable string) error {
	stream := natsStreamName(topic)
	_, err := n.js.ConsumerInfo(stream, durable, nats.Context(ctx))
	if err == nil {
		return nil
	}
	if !errors.Is(err, nats.ErrConsumerNotFound) {
		return fmt.Errorf("consumer %s: %w", durable, err)
	}
	_, err = n.js.AddConsumer(stream, &nats.ConsumerConfig{
		Durable:           durable,
		DeliverSubject:    nats.NewInbox(),
		DeliverPolicy:     nats.DeliverAllPolicy,
		AckPolicy:         nats.AckExplicitPolicy,
		AckWait:           natsAckWait,
		MaxAckPending:     1,
		FilterSubject:     topic,
		InactiveThreshold: natsMaxAge,
	}, nats.Context(ctx))
	if err != nil && !errors.Is(err, nats.ErrConsumerNameAlreadyInUse) {
		return fmt.Errorf("create consumer %s: %w", durable, err)
	}
	return nil
}

func (n *natsBus) close() error {
	return n.pub.Close() // closes n.nc
}
