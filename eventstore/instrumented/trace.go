package instrumented

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/workbench/workbench/eventstore"
)

// traceAppend starts the span of one append, "eventstore.append": it lasts until the events are
// durable, so it includes the wait for the group commit that carries them. Events whose metadata names
// no trace get the span's trace id (a copy of events is changed, never the caller's).
func traceAppend(ctx context.Context, stream string, events []eventstore.EventData) (context.Context, trace.Span, []eventstore.EventData) {
	ctx, span := otel.Tracer("github.com/workbench/workbench").Start(ctx, "eventstore.append",
		trace.WithAttributes(attribute.String("workbench.stream", stream), attribute.Int("workbench.events", len(events))))
	sc := span.SpanContext()
	if !sc.HasTraceID() {
		return ctx, span, events
	}
	id := sc.TraceID().String()
	var out []eventstore.EventData
	for i, ev := range events {
		if ev.Metadata.TraceID != "" {
			continue
		}
		if out == nil {
			out = append([]eventstore.EventData(nil), events...)
		}
		out[i].Metadata.TraceID = id
	}
	if out == nil {
		return ctx, span, events
	}
	return ctx, span, out
}

func endAppend(span trace.Span, pos eventstore.Position, err error) {
	switch {
	case errors.Is(err, eventstore.ErrConflict):
		span.SetAttributes(attribute.String("workbench.outcome", "conflict"))
	case err != nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, "append failed")
	default:
		span.SetAttributes(attribute.Int64("workbench.commit_position", int64(pos.Commit)))
	}
}
