package deps
import (
 _ "github.com/ThreeDotsLabs/watermill"
 _ "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
 _ "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
 _ "github.com/jackc/pgx/v5"
 _ "github.com/jackc/pgx/v5/stdlib"
 _ "github.com/EventStore/EventStore-Client-Go/v4/esdb"
 _ "github.com/go-chi/chi/v5"
 _ "github.com/prometheus/client_golang/prometheus"
 _ "github.com/google/uuid"
 _ "modernc.org/sqlite"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/nats-io/nats.go"
)
