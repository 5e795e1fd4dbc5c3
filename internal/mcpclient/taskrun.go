package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// Polling a task: the server's pollInterval is followed within these
// bounds, and defaultPoll stands in when it says none.
const (
	minPoll     = 50 * time.Millisecond
	maxPoll     = 30 * time.Second
	defaultPoll = time.Second
)

// A run follows one task to its end, for a tool call that became a task
// ([Provider.callOnce]).
type run struct {
	p        *Provider
	s        *session
	id, tool string          // the task's, which state repeats
	state    TaskState       // as last seen
	changed  func(TaskState) // told of each change of status or message
	asked    map[string]bool // the extension's input requests answered, by key
	told     chan *wireTask  // the task as status notifications describe it
}

// newRun starts following t, the task the call of tool became on s,
// telling changed of its state.
func (p *Provider) newRun(s *session, tool string, t *wireTask, changed func(TaskState)) *run {
	r := &run{p: p, s: s, id: t.TaskID, tool: tool, state: t.state(tool), changed: changed, asked: map[string]bool{}, told: make(chan *wireTask, 8)}
	r.changed(r.state)
	return r
}

// taskStatus takes in a 2025-11-25 status notification, which a server
// may send (and a client must not count on) with the whole task: the run
// following the task takes it in as it would a poll's answer.
func (p *Provider) taskStatus(params json.RawMessage) {
	var t wireTask
	if json.Unmarshal(params, &t) != nil || t.check() != nil {
		return
	}
	if v, ok := p.tasks.runs.Load(t.TaskID); ok {
		select {
		case v.(*run).told <- &t:
		default: // the run is behind: its next poll tells
		}
	}
}

// see takes in the task as a poll or a notification found it, and reports
// whether it is news: a state older than the one seen (a poll answered
// before a notification that came first), or any after the task ended, is
// not.
func (r *run) see(t *wireTask) bool {
	next := t.state(r.tool)
	if r.state.Status.Terminal() || !next.UpdatedAt.IsZero() && next.UpdatedAt.Before(r.state.UpdatedAt) {
		return false
	}
	if next.Status != r.state.Status || next.Message != r.state.Message {
		r.changed(next)
	}
	r.state = next
	return true
}

// interval is how long to wait before the next poll.
func (r *run) interval() time.Duration {
	if r.state.Status.Terminal() {
		return 0
	}
	if d := r.state.PollInterval; d > 0 {
		return min(max(d, minPoll), maxPoll)
	}
	return defaultPoll
}

// follow polls the task until it ends and returns the tool's result: the
// result of a completed task (a 2025-11-25 task that failed has one too,
// marked isError), the JSON-RPC error of a failed one as a
// [ProtocolError], a [TaskError] for a cancelled one. Input the task asks
// for is answered through the provider's hooks. When ctx ends first (see
// [run.stopped]), or following fails, the task is cancelled on the server;
// but not when it asks the caller's client ([AskingTask]).
func (r *run) follow(ctx context.Context) (res *mcp.CallToolResult, err error) {
	ctx, wait := r.p.tel.taskWait(ctx, r.tool, r.id)
	defer func() {
		if isAsking(err) {
			wait.end(nil) // not a failure: the task waits for an answer
			return
		}
		wait.end(err)
	}()
	r.p.tasks.runs.Store(r.id, r)
	defer r.p.tasks.runs.CompareAndDelete(r.id, r)
	res, err = r.course(ctx, wait)
	switch {
	case isAsking(err):
		// The task waits for the client's answer, in its next call
		// (AskingTask says why it is not cancelled).
	case err == nil || r.state.Status.Terminal():
	case ctx.Err() != nil:
		err = r.stopped(ctx)
	default: // no one follows the task any more
		r.cancel(context.WithoutCancel(ctx))
	}
	return res, err
}

// course polls the task until it ends, answering what it asks for.
func (r *run) course(ctx context.Context, wait *taskWaiting) (*mcp.CallToolResult, error) {
	var fetch *fetching // a 2025-11-25 tasks/result in flight
	defer func() { fetch.stop() }()
	next := r.interval()
	for {
		var t *wireTask
		timer := time.NewTimer(next)
		next = r.interval()
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-r.s.done:
			timer.Stop()
			return nil, explain(r.s.conn, fmt.Errorf("following task %q: %w", r.id, mcp.ErrConnectionClosed))
		case <-fetch.ended():
			timer.Stop()
			if fetch.err != nil {
				r.p.cfg.logger.DebugContext(ctx, "tasks/result failed; polling on", "server", r.p.name, "task", r.id, "error", fetch.err)
				fetch = nil
				continue
			}
			// The result came, so the task has ended: one more poll
			// tells the host so.
			if t, err := r.poll(ctx); err == nil {
				wait.polled(t.Status)
				r.see(t)
			}
			return fetch.res, nil
		case t = <-r.told:
			timer.Stop()
		case <-timer.C:
			var err error
			if t, err = r.poll(ctx); err != nil {
				return nil, err
			}
			wait.polled(t.Status)
		}
		if !r.see(t) {
			continue
		}
		next = r.interval()
		switch {
		case t.Status == TaskInputRequired && r.s.tasks.gen == legacyTasks && fetch == nil:
			// The server sends its requests while tasks/result is pending.
			fetch = r.fetch(ctx)
		case t.Status == TaskInputRequired && r.s.tasks.gen == extTasks:
			if err := r.answer(ctx, t); err != nil {
				return nil, err
			}
		case t.Status.Terminal():
			return r.end(ctx, t, fetch)
		}
	}
}

// stopped ends following a task whose context ended before it did: the
// task is cancelled on the server, and polled once more, so that the host
// sees what the server says of it. It returns the context's cause.
func (r *run) stopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	ctx = context.WithoutCancel(ctx)
	if r.cancel(ctx) {
		if t, err := r.poll(ctx); err == nil {
			r.see(t)
		}
	}
	return cause
}

// poll reads the task's state.
func (r *run) poll(ctx context.Context) (*wireTask, error) { return r.p.getTask(ctx, r.s, r.id) }

// end returns what the task t, ended, leaves: the result, which a
// 2025-11-25 task gives through tasks/result (a fetch in flight, if any),
// and an extension task with its last state.
func (r *run) end(ctx context.Context, t *wireTask, fetch *fetching) (*mcp.CallToolResult, error) {
	op := operation{"tools/call", r.tool}.String()
	switch {
	case t.Status == TaskCancelled:
		return nil, &TaskError{Server: r.p.name, Task: r.state}
	case r.s.tasks.gen == legacyTasks && fetch != nil:
		select {
		case <-fetch.ended():
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if fetch.err == nil {
			return fetch.res, nil
		}
		fallthrough // ask again
	case r.s.tasks.gen == legacyTasks:
		raw, err := r.p.taskResult(ctx, r.s, r.id)
		if err != nil {
			return nil, err
		}
		return r.decode(raw)
	case t.Status == TaskFailed && t.Error != nil:
		return nil, &ProtocolError{Server: r.p.name, Op: op, Code: t.Error.Code, Err: fmt.Errorf("task %q failed: %w", r.id, t.Error)}
	case t.Status == TaskFailed:
		return nil, &ProtocolError{Server: r.p.name, Op: op, Err: fmt.Errorf("task %q failed without saying why", r.id)}
	case len(t.Result) == 0:
		return nil, &ProtocolError{Server: r.p.name, Op: op, Err: fmt.Errorf("task %q completed without a result", r.id)}
	}
	return r.decode(t.Result)
}

// decode decodes the task's result.
func (r *run) decode(raw []byte) (*mcp.CallToolResult, error) {
	res, err := decodeResult(raw)
	if err != nil {
		return nil, &ProtocolError{Server: r.p.name, Op: operation{"tools/call", r.tool}.String(), Err: fmt.Errorf("the result of task %q: %w", r.id, err)}
	}
	return res, nil
}

// answer answers the input requests of an extension task t that are new
// (the server repeats a request until it has its answer), through the
// provider's hooks, and sends the answers with tasks/update. Each key is
// answered once, as SEP-2663 asks. The requests the caller's client
// answers only in its next call (its relay is [ResultOnly]) are returned
// as an [AskingTask], or as an [UnanswerableError] if the client did not
// declare what they need.
func (r *run) answer(ctx context.Context, t *wireTask) error {
	var requests mcp.InputRequestMap
	if err := requests.UnmarshalJSON(t.InputRequests); err != nil {
		return &ProtocolError{Server: r.p.name, Op: "tasks/get", Err: fmt.Errorf("task %q: its input requests: %w", r.id, err)}
	}
	answers := mcp.InputResponseMap{}
	ask := mcp.InputRequestMap{} // for the caller's client, in its next call
	for key, req := range requests {
		if r.asked[key] {
			continue
		}
		res, err := r.p.answerInput(ctx, r.s, req)
		if errors.Is(err, ErrInputRequired) {
			if err := r.unaskable(callerOf(ctx).Capabilities, req); err != nil {
				return err
			}
			ask[key] = req
			continue
		}
		if err != nil {
			var ce *ConfigError
			if errors.As(err, &ce) {
				ce.Err = fmt.Errorf("task %q, input request %q: %w", r.id, key, ce.Err)
				return ce
			}
			return fmt.Errorf("task %q: answering input request %q: %w", r.id, key, err)
		}
		answers[key] = res
	}
	if len(answers) > 0 {
		if err := r.p.updateTask(ctx, r.s, r.id, answers); err != nil {
			return err
		}
		for key := range answers {
			r.asked[key] = true
		}
	}
	if len(ask) > 0 {
		return r.asking(ask)
	}
	return nil
}

// answerInput answers one request a server made of the host during a
// task, as the host answers the same request sent on its own: through the
// hooks the provider was given (elicit.go, sampling.go, roots.go).
func (p *Provider) answerInput(ctx context.Context, s *session, req mcp.InputRequest) (mcp.InputResponse, error) {
	if _, roots := req.(*mcp.ListRootsParams); !roots {
		if res, ok, err := relayed(p, ctx, func(ctx context.Context, r Relay) (mcp.InputResponse, error) { return relayInput(ctx, r, req) }); ok {
			return res, err
		}
	}
	switch req := req.(type) {
	case *mcp.ElicitParams:
		return p.elicit(ctx, &mcp.ElicitRequest{Session: s.cs, Params: req}, s.schemas)
	case *mcp.CreateMessageWithToolsParams:
		if p.cfg.sampling != nil {
			return p.sample(ctx, &mcp.CreateMessageWithToolsRequest{Session: s.cs, Params: req})
		}
	case *mcp.CreateMessageParams:
		if p.cfg.sampling != nil {
			// The same message, with tools allowed: go-sdk converts
			// one to the other only unexported.
			var params mcp.CreateMessageWithToolsParams
			if err := remarshal(req, &params); err != nil {
				return nil, &ProtocolError{Server: p.name, Op: "sampling/createMessage", Err: err}
			}
			return p.sample(ctx, &mcp.CreateMessageWithToolsRequest{Session: s.cs, Params: &params})
		}
	case *mcp.ListRootsParams:
		if p.cfg.roots != nil {
			return &mcp.ListRootsResult{Roots: wireRoots(p.Roots())}, nil
		}
	}
	what := fmt.Sprintf("%T", req)
	switch req.(type) {
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		what = "sampling/createMessage"
	case *mcp.ListRootsParams:
		what = "roots/list"
	}
	return nil, fmt.Errorf("the server asked for %s, which the provider does not answer: %w", what, errors.ErrUnsupported)
}

// cancel asks the server to cancel the task, which no one follows any
// more, if it takes tasks/cancel, and reports whether it did. A failure
// is logged.
func (r *run) cancel(ctx context.Context) bool {
	if !r.s.tasks.cancel {
		r.p.cfg.logger.InfoContext(ctx, "the server cannot cancel tasks; leaving the task to run", "server", r.p.name, "task", r.id)
		return false
	}
	if err := r.p.cancelTask(ctx, r.s, r.id); err != nil {
		r.p.cfg.logger.InfoContext(ctx, "could not cancel the task", "server", r.p.name, "task", r.id, "error", err)
		return false
	}
	return true
}

// A fetching is a 2025-11-25 tasks/result in flight: the server answers it
// once the task has ended, and meanwhile sends the requests the task makes
// of the client, which go-sdk's handlers answer. A nil one is none.
type fetching struct {
	done   chan struct{}
	res    *mcp.CallToolResult
	err    error
	cancel context.CancelFunc
}

// fetch sends tasks/result for the task.
func (r *run) fetch(ctx context.Context) *fetching {
	ctx, cancel := context.WithCancel(ctx)
	f := &fetching{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(f.done)
		raw, err := r.p.taskResult(ctx, r.s, r.id)
		if err == nil {
			f.res, err = r.decode(raw)
		}
		f.err = err
	}()
	return f
}

// ended is closed once the fetch has its answer; nil for no fetch.
func (f *fetching) ended() <-chan struct{} {
	if f == nil {
		return nil
	}
	return f.done
}

// stop ends the fetch and waits for it.
func (f *fetching) stop() {
	if f != nil {
		f.cancel()
		<-f.done
	}
}

// statusReport is what a call tells of its task's changes: the call's timeout
// restarts, and the host's function, if any, is told.
func statusReport(ctx context.Context, extend func()) func(TaskState) {
	fn := taskStatusFunc(ctx)
	return func(st TaskState) {
		extend()
		if fn != nil {
			fn(st)
		}
	}
}

// unheard are the notifications the provider reads that go-sdk drops.
func (p *Provider) unheard() sdkfix.Unheard {
	return sdkfix.Unheard{"notifications/tasks/status": p.taskStatus}
}
