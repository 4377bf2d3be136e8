package bus

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wmsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// PostgreSQL transport (watermill-sql, pgx pool through its pgx adapter).
//
// Each topic is a table "watermill_TOPIC" whose rows are ordered by (transaction id, offset) and read
// only below the oldest running transaction, so a row that commits late is never skipped; a table
// "watermill_offsets_TOPIC" keeps where each consumer group has read to. Tables are created on first
// use.
//
// Fan-out, not competing consumers: every subscription reads as a consumer group of its own. Without
// Options.Name the group is "ephemeral-<uuid>", starts at the current end of the table (it receives
// what commits after it subscribed; see startAtEnd) and its offset row is deleted when the
// subscription ends. With a
// name the group is that name: it starts at the beginning of the table the first time and resumes
// after its last acknowledged message after a restart. Acknowledgement is after the handler returns,
// so delivery is at least once.
//
// The subscriber holds a transaction open while a message waits for its handler, and that transaction
// holds back every reader that reads below the oldest running transaction (this bus's readers, and
// the PostgreSQL event log's): handlers must be quick. The messages table is not pruned here.
const (
	sqlPollInterval = 200 * time.Millisecond
	sqlAckDeadline  = 30 * time.Second
)

type pgBus struct {
	pool   *pgxpool.Pool
	db     wmsql.Beginner
	wlog   watermill.LoggerAdapter
	schema wmsql.DefaultPostgreSQLSchema
	offs   wmsql.DefaultPostgreSQLOffsetsAdapter
	pub    *wmsql.Publisher
}

func openPostgres(ctx context.Context, url string, wlog watermill.LoggerAdapter) (*pgBus, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("parse PostgreSQL URL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	p := &pgBus{pool: pool, db: wmsql.BeginnerFromPgx(pool), wlog: wlog}
	p.pub, err = wmsql.NewPublisher(p.db, wmsql.PublisherConfig{SchemaAdapter: p.schema, AutoInitializeSchema: true}, wlog)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("watermill-sql publisher: %w", err)
	}
	return p, nil
}

func (p *pgBus) publish(ctx context.Context, topic string, msgs []*message.Message) error {
	// One INSERT for the batch; its context is the first message's (set by Bus.Publish).
	return p.pub.Publish(topic, msgs...)
}

func (p *pgBus) subscribe(ctx context.Context, topic, name string) (<-chan *message.Message, func() error, error) {
	group, ephemeral := name, name == ""
	if ephemeral {
		group = "ephemeral-" + uuid.NewString()
	}
	deadline := sqlAckDeadline
	sub, err := wmsql.NewSubscriber(p.db, wmsql.SubscriberConfig{
		ConsumerGroup:  group,
		AckDeadline:    &deadline,
		PollInterval:   sqlPollInterval,
		ResendInterval: 100 * time.Millisecond, // Bus.deliver already waited RetryDelay before its nack
		SchemaAdapter:  p.schema,
		OffsetsAdapter: p.offs,
	}, p.wlog)
	if err != nil {
		return nil, nil, err
	}
	if err := sub.SubscribeInitialize(topic); err != nil {
		_ = sub.Close()
		return nil, nil, err
	}
	if ephemeral {
		if err := p.startAtEnd(ctx, topic, group); err != nil {
			_ = sub.Close()
			return nil, nil, err
		}
	}
	msgs, err := sub.Subscribe(ctx, topic)
	if err != nil {
		_ = sub.Close()
		return nil, nil, err
	}
	stop := func() error {
		err := sub.Close()
		if ephemeral {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			q := `DELETE FROM ` + p.offs.MessagesOffsetsTable(topic) + ` WHERE consumer_group = $1`
			if _, derr := p.pool.Exec(ctx, q, group); derr != nil && err == nil {
				err = fmt.Errorf("forget consumer group %s: %w", group, derr)
			}
		}
		return err
	}
	return msgs, stop, nil
}

// startAtEnd records a new consumer group as having read everything committed so far: its last
// transaction is the one just below the oldest transaction still running on the server, and its
// offset is past any offset that transaction can hold. The subscriber's query then returns the rows of
// every transaction at or above that oldest one: all that commits from now on, never missing one that
// was in flight. When an older transaction is still running somewhere on the server, rows that
// committed shortly before the subscription come too; consumers are idempotent, and a miss would be
// worse. watermill's own "zero offsets" insert runs after this one and leaves it alone (ON CONFLICT
// DO NOTHING).
func (p *pgBus) startAtEnd(ctx context.Context, topic, group string) error {
	q := `INSERT INTO ` + p.offs.MessagesOffsetsTable(topic) + ` (consumer_group, offset_acked, last_processed_transaction_id)
		VALUES ($1, 9223372036854775807, ((pg_snapshot_xmin(pg_current_snapshot())::text::numeric - 1)::text)::xid8)
		ON CONFLICT (consumer_group) DO NOTHING`
	if _, err := p.pool.Exec(ctx, q, group); err != nil {
		return fmt.Errorf("start consumer group %s at the end of %s: %w", group, strings.Trim(p.schema.MessagesTable(topic), `"`), err)
	}
	return nil
}

func (p *pgBus) close() error {
	err := p.pub.Close()
	p.pool.Close()
	return err
}
