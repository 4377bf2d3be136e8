package kurrent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"github.com/workbench/workbench/eventstore"
)

// This file holds every translation between Workbench's event store contract and KurrentDB's, as pure
// functions, so that each can be tested without a server.

// noPosition is what the server sends for an event whose $all position it does not know: stream reads
// on servers before 22.6, and events written inside explicit transactions.
const noPosition = math.MaxUint64

// expectedRevision maps our expected version onto KurrentDB's. Our versions start at 1; KurrentDB's
// stream revisions start at 0, so Exact(v) expects revision v-1.
func expectedRevision(e eventstore.ExpectedVersion) (esdb.ExpectedRevision, error) {
	switch {
	case e == eventstore.Any:
		return esdb.Any{}, nil
	case e == eventstore.NoStream:
		return esdb.NoStream{}, nil
	case e > 0:
		return esdb.Revision(uint64(e) - 1), nil
	default:
		return nil, fmt.Errorf("eventstore: invalid expected version %d", int64(e))
	}
}

// lastRevision is the revision the last of n appended events takes. For Any the append's outcome is the
// only source: the server reports the stream's revision after the write (for an idempotent retry, the
// revision of the last matched event).
func lastRevision(e eventstore.ExpectedVersion, n int, reported uint64) uint64 {
	switch {
	case e == eventstore.NoStream:
		return uint64(n) - 1
	case e > 0:
		return uint64(e) + uint64(n) - 1
	default:
		return reported
	}
}

// fromPosition maps our position onto a place in $all to read or subscribe from. Start is the
// beginning of $all; any other position names the event there.
func fromPosition(p eventstore.Position) esdb.AllPosition {
	if p.IsZero() {
		return esdb.Start{}
	}
	return esdb.Position{Commit: p.Commit, Prepare: p.Prepare}
}

// positionOf maps a $all position onto ours, one to one. The server's "no position" marker becomes the
// zero Position, which callers treat as unknown.
func positionOf(p esdb.Position) eventstore.Position {
	if p.Commit == noPosition || p.Prepare == noPosition {
		return eventstore.Position{}
	}
	return eventstore.Position{Commit: p.Commit, Prepare: p.Prepare}
}

// writePosition is the position an append's outcome reports, zero when it reports none (an idempotent
// retry: the server wrote nothing, so it has no new position to tell).
func writePosition(r *esdb.WriteResult) eventstore.Position {
	if r == nil {
		return eventstore.Position{}
	}
	return positionOf(esdb.Position{Commit: r.CommitPosition, Prepare: r.PreparePosition})
}

// isSystem reports whether an event is KurrentDB's own: its stream or its type starts with "$" (stream
// metadata, statistics, projections' output, links). Workbench never writes such events and never reads
// them back.
func isSystem(stream, eventType string) bool {
	return strings.HasPrefix(stream, "$") || strings.HasPrefix(eventType, "$")
}

// storedMetadata is the user metadata of every event Workbench writes: the domain metadata's fields
// and the schema version of the data, in one JSON object.
type storedMetadata struct {
	eventstore.Metadata
	SchemaVersion int `json:"schema_version"`
}

// encodeEvent maps an event on its way in onto KurrentDB's event data. The event id is KurrentDB's
// event id, which is also what the server de-duplicates retried appends by.
func encodeEvent(ev eventstore.EventData) (esdb.EventData, error) {
	meta, err := json.Marshal(storedMetadata{Metadata: ev.Metadata, SchemaVersion: ev.SchemaVersion})
	if err != nil {
		return esdb.EventData{}, fmt.Errorf("encode metadata of event %s: %w", ev.ID, err)
	}
	return esdb.EventData{
		EventID:     ev.ID,
		EventType:   ev.Type,
		ContentType: esdb.ContentTypeJson,
		Data:        ev.Data,
		Metadata:    meta,
	}, nil
}

// decodeEvent maps a recorded event onto an envelope, taking prefix off its stream name. Data must be
// JSON (an envelope carries JSON). Metadata is ours when the event was written by Workbench; an event
// without metadata decodes with empty metadata and schema version 1.
func decodeEvent(rec *esdb.RecordedEvent, prefix string) (eventstore.Envelope, error) {
	if rec == nil {
		return eventstore.Envelope{}, errors.New("kurrent: empty event")
	}
	if len(rec.Data) == 0 || !json.Valid(rec.Data) {
		return eventstore.Envelope{}, fmt.Errorf("kurrent: event %s in %q (revision %d): data is not JSON", rec.EventID, rec.StreamID, rec.EventNumber)
	}
	meta := storedMetadata{SchemaVersion: 1}
	if len(rec.UserMetadata) > 0 {
		if err := json.Unmarshal(rec.UserMetadata, &meta); err != nil {
			return eventstore.Envelope{}, fmt.Errorf("kurrent: event %s in %q (revision %d): metadata: %w", rec.EventID, rec.StreamID, rec.EventNumber, err)
		}
	}
	return eventstore.Envelope{
		ID:            rec.EventID,
		Stream:        strings.TrimPrefix(rec.StreamID, prefix),
		Version:       int64(rec.EventNumber) + 1,
		Position:      positionOf(rec.Position),
		Type:          rec.EventType,
		SchemaVersion: meta.SchemaVersion,
		Data:          json.RawMessage(rec.Data),
		Metadata:      meta.Metadata,
	}, nil
}

// wrongVersionCurrent reads the stream's current revision out of the client's wrong-expected-version
// error. The v4 client keeps the server's answer only in the message ("wrong expected version:
// expecting '3' but got 'no_stream'"), so the message is what there is to read.
var wrongVersionCurrent = regexp.MustCompile(`but got '([^']*)'`)

// conflictActual returns the version the stream was at when the server refused an append (0 for no
// stream), and false when err does not say.
func conflictActual(err error) (int64, bool) {
	m := wrongVersionCurrent.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, false
	}
	if m[1] == "no_stream" {
		return 0, true
	}
	rev, perr := strconv.ParseInt(m[1], 10, 64)
	if perr != nil || rev < 0 {
		return 0, false
	}
	return rev + 1, true
}

// failure is what a client error means to the store.
type failure int

const (
	failOther        failure = iota // anything else: wrapped and returned
	failWrongVersion                // an append's expected version was refused: a ConflictError
	failNotFound                    // the stream does not exist: Load returns nothing
	failClosed                      // the client is closed: ErrClosed
)

// classifyCode maps a client error code (ok false: the error carried none) onto a failure.
func classifyCode(code esdb.ErrorCode, ok bool) failure {
	if !ok {
		return failOther
	}
	switch code {
	case esdb.ErrorCodeWrongExpectedVersion:
		return failWrongVersion
	case esdb.ErrorCodeResourceNotFound:
		return failNotFound
	case esdb.ErrorCodeConnectionClosed:
		return failClosed
	default:
		return failOther
	}
}

// classify finds the client error in err's chain (the client wraps some of its errors) and maps it.
func classify(err error) failure {
	var e *esdb.Error
	if err == nil || !errors.As(err, &e) {
		return failOther
	}
	return classifyCode(e.Code(), true)
}

// mapError turns a client error into ours: a closed client is ErrClosed (the cause kept), anything
// else is wrapped with what was being done. Wrong expected versions are mapped by the caller, which
// knows the stream and the expected version.
func mapError(op string, err error) error {
	if err == nil {
		return nil
	}
	if classify(err) == failClosed {
		return fmt.Errorf("kurrent: %s: %w (%w)", op, eventstore.ErrClosed, err)
	}
	return fmt.Errorf("kurrent: %s: %w", op, err)
}

// clientURL translates a KurrentDB connection string into the form the v4 client parses. KurrentDB
// names its scheme kurrentdb:// (also kurrent://, and +discover for DNS discovery); the client knows
// only the older esdb:// and esdb+discover://, which mean the same.
func clientURL(raw string) (string, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "", fmt.Errorf("kurrent: connection string %q: want esdb://, esdb+discover://, kurrentdb:// or kurrentdb+discover://", redact(raw))
	}
	switch strings.ToLower(scheme) {
	case "esdb", "kurrentdb", "kurrent":
		return "esdb://" + rest, nil
	case "esdb+discover", "kurrentdb+discover", "kurrent+discover":
		return "esdb+discover://" + rest, nil
	default:
		return "", fmt.Errorf("kurrent: connection string %q: scheme %q is not one of esdb, esdb+discover, kurrentdb, kurrentdb+discover", redact(raw), scheme)
	}
}

// redact hides the password of a connection string for error messages.
func redact(raw string) string {
	if pw := password(raw); pw != "" {
		return strings.ReplaceAll(raw, pw, "xxxxx")
	}
	return raw
}

// redactError is err with the password of connection string raw hidden from its message; the client's
// parse errors quote the whole string.
func redactError(raw string, err error) error {
	pw := password(raw)
	if pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
}

// password returns the password in the user part of connection string raw ("scheme://user:pw@host"),
// or "". It reads the string by hand, since strings with several hosts are not URLs to net/url.
func password(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

// clientLogging routes the client's log lines to l. The client reports routine events as errors (every
// subscription it drops, a cancelled one included), while real failures reach our callers as returned
// errors; so its errors are logged as warnings.
func clientLogging(l *slog.Logger) esdb.LoggingFunc {
	return func(level esdb.LogLevel, format string, args ...any) {
		lv := slog.LevelWarn
		switch level {
		case esdb.LogDebug:
			lv = slog.LevelDebug
		case esdb.LogInfo:
			lv = slog.LevelInfo
		}
		l.Log(context.Background(), lv, "kurrentdb client: "+fmt.Sprintf(format, args...))
	}
}
