package executions

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// traceOutcome ends an execution's span with its outcome: the code of a failure, never its message.
func traceOutcome(span trace.Span, o Outcome) {
	if o.Integration != nil {
		span.SetAttributes(attribute.String("workbench.integration", o.Integration.Name))
	}
	if o.Code != "" {
		span.SetAttributes(attribute.String("workbench.error_code", o.Code))
		span.SetStatus(codes.Error, o.Code)
	}
	span.End()
}
