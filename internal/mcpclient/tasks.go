package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/tool"
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
// call's, until the call returns (for [Provider.StartTask], until the task
// ends); it must not block.
func WithTaskStatus(ctx context.Context, fn func(TaskState)) context.Context {
	return taskStatusKey.With(ctx, fn)
}

func taskStatusFunc(ctx context.Context) func(TaskState) { return taskStatusKey.Value(ctx) }

// A TaskError says a task ended without a result: it was cancelled, by
// the server or at the host's request ([Task.Cancel]).
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

// StartTask calls a tool of the server, as [Provider.CallToolResult] does,
// and returns once the server has taken the call on, without waiting for
// its result: a host's long job (a research in a chat window) that the
// user follows, comes back to, or cancels.
//
// On the 2025-11-25 protocol the call asks for a task when the tool allows
// one (execution.taskSupport optional or required) and the server declared
// task-augmented calls; with the 2026-07-28 tasks extension the server
// decides. A call the server answers at once gives a Task already done,
// with no ID.
//
// The provider follows the task until it ends (see [Task]); ctx bounds the
// start alone (by the call timeout, as a call), and the functions it
// carries ([WithTaskStatus], [tool.WithProgress]) are told of the task's
// course until then.
func (p *Provider) StartTask(ctx context.Context, name string, args any) (*Task, error) {
	s, target, raw, err := p.hostCall(name, args)
	if err != nil {
		return nil, err
	}
	op := operation{"tools/call", target}
	if lt := s.catalog().listed[target]; lt != nil && lt.outputErr != nil {
		return nil, p.unusableOutput(target, lt)
	}
	params := &mcp.CallToolParams{Name: target, Arguments: raw}
	forget := func() {}
	if progress := ctxkey.Value[func(tool.Progress)](ctx); progress != nil {
		token := p.calls.track(func() {}, progress)
		forget = func() { p.calls.forget(token) }
		params.SetProgressToken(token)
	}
	var res *mcp.CallToolResult
	var created *wireTask
	err = p.request(ctx, s, op, p.cfg.callTimeout(), func(ctx context.Context, _ func()) error {
		var err error
		res, created, err = p.sendCall(ctx, s, target, params, s.asTask(target, true))
		return err
	})
	t := &Task{done: make(chan struct{}), state: TaskState{Tool: target, Status: TaskCompleted}}
	if err != nil || created == nil {
		forget()
		if err != nil {
			return nil, err
		}
		if !res.IsError {
			err = p.checkOutput(s, target, res)
		}
		t.finish(res, err)
		return t, nil
	}
	status := taskStatusFunc(ctx)
	life, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	t.stop = stop
	t.r = p.newRun(s, target, created, func(st TaskState) {
		t.mu.Lock()
		t.state = st
		t.mu.Unlock()
		if status != nil {
			status(st)
		}
	})
	p.tasks.add(t)
	if s.ended() { // Close came meanwhile
		p.tasks.remove(t)
		stop(nil)
		forget()
		return nil, &TransportError{Server: p.name, Op: op.String(), Err: errClosed}
	}
	go func() {
		defer p.tasks.remove(t)
		defer forget()
		defer stop(nil)
		// Until it ends the task is a call in flight, whose requests to
		// the host (a 2025-11-25 server's carry no call) are answered.
		f := p.inflight.begin(life, target)
		defer p.inflight.end(f)
		res, err := t.r.follow(f.ctx)
		var te *TaskError
		switch {
		case err == nil && !res.IsError:
			err = p.checkOutput(s, target, res)
		case err != nil && !errors.As(err, &te):
			err = p.classify(op.String(), explain(s.conn, err), false)
		}
		t.finish(res, err)
	}()
	return t, nil
}

// A Task is a tool call the server runs as a task, started by
// [Provider.StartTask] and followed by the provider until it ends: polled
// at the interval the server asks for, the input it asks for answered
// through the provider's hooks ([WithElicitation]), its result kept for
// [Task.Wait]. A task outlives the call that started it but not the
// provider: Close cancels the tasks still running, on the server too.
// Its methods are safe for concurrent use.
type Task struct {
	r    *run // nil for a call answered at once
	done chan struct{}
	stop context.CancelCauseFunc // ends the following

	mu    sync.Mutex
	state TaskState
	res   *mcp.CallToolResult
	err   error
}

// ID returns the server's id of the task, "" for a call the server
// answered at once.
func (t *Task) ID() string { return t.State().ID }

// State returns the task as the server last described it.
func (t *Task) State() TaskState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Done returns a channel closed once the task has ended and its result (or
// error) is at hand.
func (t *Task) Done() <-chan struct{} { return t.done }

// Wait waits for the task to end, or for ctx, and returns its result as
// [Provider.CallToolResult] would have (isError included, checked against
// the tool's output schema), or the error that ended it: the JSON-RPC error
// of a task that failed, a [TaskError] for one cancelled, a
// [TransportError] if the connection was lost or the provider closed.
func (t *Task) Wait(ctx context.Context) (*mcp.CallToolResult, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.res, t.err
}

// Cancel asks the server to cancel the task (tasks/cancel) and stops
// following it: [Task.Wait] then returns a [TaskError]. It does nothing for
// a task that has ended. If the request fails (the task ended meanwhile,
// say), or the server declared no tasks/cancel (errors.ErrUnsupported), the
// task is followed on and Cancel returns the error.
func (t *Task) Cancel(ctx context.Context) error {
	r := t.r
	select {
	case <-t.done:
		return nil
	default:
	}
	if !r.s.tasks.cancel {
		return fmt.Errorf("server %q: task %q: the server declared no tasks/cancel: %w", r.p.name, t.ID(), errors.ErrUnsupported)
	}
	if err := r.p.cancelTask(ctx, r.s, t.ID()); err != nil {
		return err
	}
	t.stop(errCancelRequested)
	select {
	case <-t.done:
	case <-ctx.Done():
	}
	return nil
}

// finish keeps what the task ended with.
func (t *Task) finish(res *mcp.CallToolResult, err error) {
	t.mu.Lock()
	t.res, t.err = res, err
	t.mu.Unlock()
	close(t.done)
}

// tasks are the tasks a provider follows for its host ([Provider.StartTask]),
// which Close ends.
type tasks struct {
	mu   sync.Mutex
	live map[*Task]bool
	wg   sync.WaitGroup
	runs sync.Map // the runs following a task (a host's or a call's), by task id
}

func (ts *tasks) add(t *Task) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.live == nil {
		ts.live = map[*Task]bool{}
	}
	ts.live[t] = true
	ts.wg.Add(1)
}

func (ts *tasks) remove(t *Task) {
	ts.mu.Lock()
	delete(ts.live, t)
	ts.mu.Unlock()
	ts.wg.Done()
}

// close stops every task, each cancelled on the server, and waits for
// them.
func (ts *tasks) close() {
	ts.mu.Lock()
	for t := range ts.live {
		t.stop(errClosed)
	}
	ts.mu.Unlock()
	ts.wg.Wait()
}

// errClosed ends the tasks a provider follows when it closes.
var errClosed = errors.New("the provider was closed")
