package bus

import (
	"context"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
)

// goChannel is the in-process transport. Every subscriber receives every message. Publish waits
// until every subscriber has acknowledged each message before sending the next one: that is what
// keeps messages in order (without it GoChannel hands each message to its subscribers from separate
// goroutines), and it makes a slow in-process consumer slow the publisher down instead of piling up
// messages in memory. Nothing is kept: a message published while no one subscribes is gone.
type goChannel struct {
	ps *gochannel.GoChannel
}

func newGoChannel(log watermill.LoggerAdapter) *goChannel {
	return &goChannel{ps: gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, log)}
}

func (g *goChannel) publish(ctx context.Context, topic string, msgs []*message.Message) error {
	// GoChannel's Publish does not watch a context; run it aside so the caller can give up. It still
	// ends on its own once the subscribers acknowledge, or when the bus closes.
	done := make(chan error, 1)
	go func() { done <- g.ps.Publish(topic, msgs...) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *goChannel) subscribe(ctx context.Context, topic, _ string) (<-chan *message.Message, func() error, error) {
	msgs, err := g.ps.Subscribe(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	// The subscription ends with ctx; GoChannel then closes msgs.
	return msgs, func() error { return nil }, nil
}

func (g *goChannel) close() error { return g.ps.Close() }
