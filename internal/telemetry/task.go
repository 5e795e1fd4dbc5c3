package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/trace"
)

// A TaskWait is the span of a host waiting for an MCP task (a tools/call
// the server runs as a task, then polled with tasks/get) to finish: named
// "await_task {tool}", with the task's id, how often it was polled and the
// status it was last seen in. Each poll is an MCP request of its own, whose
// client span is a child of this one.
//
// mcptool calls [Telemetry.StartTaskWait] when the server answers a call
// with a task, [TaskWait.Polled] after each tasks/get, and [TaskWait.End]
// when the task is done.
type TaskWait struct {
	span  trace.Span
	polls int
}

// StartTaskWait starts waiting for the task taskID the call of toolName
// became. The context it returns carries the span, for the polls.
func (t *Telemetry) StartTaskWait(ctx context.Context, toolName, taskID string) (context.Context, *TaskWait) {
	ctx, span := t.Start(ctx, Named(SpanTaskWait, toolName), trace.SpanKindInternal,
		GenAIToolName.String(toolName), TaskID.String(taskID))
	return ctx, &TaskWait{span: span}
}

// Polled notes one poll, which found the task in status (working,
// input_required, completed...).
func (w *TaskWait) Polled(status string) {
	w.polls++
	w.span.SetAttributes(TaskPolls.Int(w.polls), TaskStatus.String(status))
}

// End ends the wait, failed if err is not nil.
func (w *TaskWait) End(err error) { End(w.span, err) }
