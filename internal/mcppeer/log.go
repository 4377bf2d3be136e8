package mcppeer

import (
	"context"
	"encoding/json"
	"slices"
)

// LogSink receives the log messages (notifications/message) a remote sends during one tools/call, to
// pass on to the agent's client on the call's stream.
type LogSink interface {
	Log(level, logger string, data json.RawMessage)
}

type logKey struct{}

// WithLog returns ctx whose remote log messages go to sink.
func WithLog(ctx context.Context, sink LogSink) context.Context {
	if sink == nil {
		return ctx
	}
	return context.WithValue(ctx, logKey{}, sink)
}

// Logging reports whether log messages under ctx go anywhere (the agent's client asked for them).
func Logging(ctx context.Context) bool {
	_, ok := ctx.Value(logKey{}).(LogSink)
	return ok
}

// Levels are the MCP log levels (the syslog severities of RFC 5424), least severe first.
var Levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// AtLeast reports whether level is as severe as min; an unknown level counts as the most severe, so
// nothing a remote labels oddly is lost.
func AtLeast(level, min string) bool {
	i := slices.Index(Levels, level)
	if i < 0 {
		return true
	}
	return i >= slices.Index(Levels, min)
}

// maxLogData bounds a relayed log message's data (bytes of JSON); a larger one is replaced by a note.
const maxLogData = 16 << 10

// Log passes one remote log message on under ctx, its data redacted of the login's credentials. A
// message under ctx without a sink is dropped.
func Log(ctx context.Context, level, logger string, data json.RawMessage) {
	sink, ok := ctx.Value(logKey{}).(LogSink)
	if !ok {
		return
	}
	if len(data) > maxLogData {
		data, _ = json.Marshal("(a log message of more than 16 KiB was left out)")
	}
	r := redaction(ctx)
	if r.JSON != nil {
		data = r.JSON(data)
	}
	if r.Text != nil {
		logger = r.Text(logger)
	}
	if len(logger) > maxMessage {
		logger = logger[:maxMessage]
	}
	sink.Log(level, logger, data)
}
