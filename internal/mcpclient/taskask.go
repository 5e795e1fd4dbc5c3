package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An AskingTask is the error a call made for a [Caller] whose relay
// answers only in results ([ResultOnly]) returns when the task the
// provider follows for it (a task of the 2026-07-28 extension, which the
// caller does not follow itself) asks for input only the caller's client
// can give. The task is left waiting on the server: the caller's client
// answers Requests in its next call, which is made with the task as
// [Caller].Answering and its answers as InputResponses; the provider then
// sends them to the task (tasks/update) and follows it on, within the call
// timeout, possibly asking again.
//
// Nothing of it is kept by the provider: what the next call needs is here,
// for the caller to carry (package gateway seals it in the requestState of
// the result it gives its client). A task whose client never answers is
// not cancelled: nothing kept says that it was abandoned rather than
// answered late, maybe by another process, and the server forgets it when
// its ttl has passed.
type AskingTask struct {
	// Server is the provider's name for the server; Tool the server's name
	// of the tool called; ID the server's id of the task.
	Server, Tool, ID string
	// Requests are the task's input requests the client is to answer, by
	// the server's keys.
	Requests mcp.InputRequestMap
	// Answered are the keys of the task's input requests answered before,
	// which the server may repeat until it has taken their answers: they
	// are not asked again.
	Answered []string
}

func (a *AskingTask) Error() string {
	return format(a.Server, fmt.Sprintf("tool %q", a.Tool), fmt.Errorf("task %q asks its caller for input (%d requests)", a.ID, len(a.Requests)))
}

// An UnanswerableError is the error of a call whose task asked its
// caller's client for input that the client, asked only in its call's
// result, cannot give: it did not declare the capability the request
// needs. The task is cancelled, as no one will answer it.
type UnanswerableError struct {
	// Server is the provider's name for the server; Tool the server's name
	// of the tool called; Task the server's id of the task.
	Server, Tool, Task string
	// Asked says what the task asked, in the server's words where it has
	// some; Need what the client would have to declare.
	Asked, Need string
}

func (e *UnanswerableError) Error() string {
	return format(e.Server, fmt.Sprintf("tool %q", e.Tool), fmt.Errorf(
		"the tool's task asks %s, which this client cannot answer: it would have to %s, or follow the task itself by declaring the tasks extension (%s)",
		e.Asked, e.Need, tasksExtension))
}

// unaskable returns the [UnanswerableError] of req, a request of the task
// for the caller's client, if the capabilities the caller declared (nil:
// unknown) do not cover it.
func (r *run) unaskable(c *mcp.ClientCapabilities, req mcp.InputRequest) error {
	if c == nil {
		return nil
	}
	var asked, need string
	switch req := req.(type) {
	case *mcp.ElicitParams:
		asked = fmt.Sprintf("the user %q (elicitation)", req.Message)
		switch e := c.Elicitation; {
		case req.Mode == "url" && (e == nil || e.URL == nil):
			need = "declare elicitation in URL mode (capabilities.elicitation.url)"
		case e == nil:
			need = "declare elicitation (capabilities.elicitation)"
		}
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		asked = "for a message from the client's model (sampling/createMessage)"
		if c.Sampling == nil {
			need = "declare sampling (capabilities.sampling)"
		}
	}
	if need == "" {
		return nil
	}
	return &UnanswerableError{Server: r.p.name, Tool: r.tool, Task: r.id, Asked: asked, Need: need}
}

// asking returns the task, waiting for the caller's client to answer ask.
func (r *run) asking(ask mcp.InputRequestMap) *AskingTask {
	return &AskingTask{Server: r.p.name, Tool: r.tool, ID: r.id, Requests: ask, Answered: slices.Sorted(maps.Keys(r.asked))}
}

// resume sends answers, the caller's client's, to the task a that a call
// of tool on s returned asking ([AskingTask]), and follows the task on as
// callOnce follows a new one: its state reported to changed, its next
// questions answered or asked of the client again, its result returned.
func (p *Provider) resume(ctx context.Context, s *session, tool string, a *AskingTask, answers mcp.InputResponseMap, changed func(TaskState)) (*mcp.CallToolResult, error) {
	op := operation{"tools/call", tool}.String()
	switch {
	case a.Server != p.name || a.Tool != tool:
		return nil, &ConfigError{Server: p.name, Option: "Caller.Answering", Err: fmt.Errorf("task %q is one of server %q's tool %q", a.ID, a.Server, a.Tool)}
	case s.tasks.gen != extTasks:
		return nil, &ProtocolError{Server: p.name, Op: op, Err: fmt.Errorf("task %q: the server no longer speaks the tasks extension", a.ID)}
	}
	if err := p.updateTask(ctx, s, a.ID, answers); err != nil {
		return nil, err
	}
	t, err := p.getTask(ctx, s, a.ID)
	if err != nil {
		return nil, err
	}
	r := p.newRun(s, tool, t, changed)
	for _, key := range a.Answered {
		r.asked[key] = true
	}
	for key := range answers {
		r.asked[key] = true
	}
	if t.Status.Terminal() {
		// A run takes no news of a task that has ended.
		return r.end(ctx, t, nil)
	}
	return r.follow(ctx)
}

// isAsking reports whether err is an [AskingTask].
func isAsking(err error) bool {
	var a *AskingTask
	return errors.As(err, &a)
}
