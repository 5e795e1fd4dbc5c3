package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// TaskStatus is where a task stands, as the server says.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal: a
// task in one of them never changes again.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required" // the server awaits an answer from the host
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether the task has ended.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

func (s TaskStatus) known() bool { return s.Terminal() || s == TaskWorking || s == TaskInputRequired }

// TaskState is a task as the server last described it.
type TaskState struct {
	// ID is the server's id of the task.
	ID string
	// Tool is the tool whose call the task is.
	Tool string
	// Status is where the task stands.
	Status TaskStatus
	// Message says more of the status, if the server said anything. The
	// server wrote it: clean it before showing it to a person.
	Message string
	// CreatedAt and UpdatedAt are when the task was created and last
	// changed, zero if the server's timestamps could not be read.
	CreatedAt, UpdatedAt time.Time
	// TTL is how long after its creation the server keeps the task, zero
	// if it set no limit; PollInterval how often it asks to be polled, zero
	// if it did not say.
	TTL, PollInterval time.Duration
}

var taskStatusKey = ctxkey.New[func(TaskState)]("mcptool task status")

// WithTaskStatus returns a copy of ctx carrying fn, which a call made with
// it tells of each change of its task's status (or status message), from
// the task's creation to its end, when the server runs the call as a task.
// A host shows a long call's course this way, as it shows progress with
// [tool.WithProgress]. fn may be called from another goroutine than the
// call's, until the call returns; it must not block.
func WithTaskStatus(ctx context.Context, fn func(TaskState)) context.Context {
	return taskStatusKey.With(ctx, fn)
}

func taskStatusFunc(ctx context.Context) func(TaskState) { return taskStatusKey.Value(ctx) }

// A TaskError says a task ended without a result: it was cancelled.
type TaskError struct {
	// Server is the provider's name for the server.
	Server string
	// Task is the task as last seen: cancelled, or, as cancelling is
	// cooperative with the 2026-07-28 extension, still on its way.
	Task TaskState
}

func (e *TaskError) Error() string {
	why := "cancelled"
	if e.Task.Status == TaskCancelled && e.Task.Message != "" {
		why += ": " + e.Task.Message
	}
	return format(e.Server, fmt.Sprintf("tool %q: task %q", e.Task.Tool, e.Task.ID), errors.New(why))
}

// OutcomeUnknown reports true: the task may have done part of its work.
func (e *TaskError) OutcomeUnknown() bool { return true }

// tasks are the tasks a provider's calls follow.
type tasks struct {
	runs sync.Map // the runs following a task, by task id
}
