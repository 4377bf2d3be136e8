package metatools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/workbench/workbench/eventstore"
)

// discardAppender acknowledges every append without storing it.
type discardAppender struct{}

func (discardAppender) Append(context.Context, string, eventstore.ExpectedVersion, ...eventstore.EventData) (eventstore.Position, error) {
	return eventstore.Position{Commit: 1, Prepare: 1}, nil
}

// BenchmarkExecuteTools is one execute_tools call of utils_echo through the meta-tool set, its record
// appended to a store that keeps nothing: the handler's own work (decode, check, run, record, encode)
// without the database's.
func BenchmarkExecuteTools(b *testing.B) {
	e := newEnv(b, discardAppender{})
	raw := json.RawMessage(`{"executions":[{"tool":"utils_echo","args":{"message":"benchmark message of a typical short tool argument, 64 bytes...."}}]}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.set.CallTool(context.Background(), ada, "execute_tools", raw)
		if err != nil || res.IsError {
			b.Fatal(err, res.Text)
		}
	}
}
