package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// The wire of the two generations of MCP tasks. Each server speaks at most
// one, settled when it connects:
//
//   - the experimental tasks of protocol 2025-11-25
//     (specification/2025-11-25/basic/utilities/tasks): the server declares
//     capabilities.tasks.requests.tools.call and a tool its
//     execution.taskSupport; the client asks for a task with the task member
//     of tools/call's params, polls tasks/get, reads the result (and, while
//     the task is input_required, the server's requests) through tasks/result,
//     and cancels with tasks/cancel if the server declared
//     capabilities.tasks.cancel;
//   - the extension io.modelcontextprotocol/tasks of protocol 2026-07-28
//     (SEP-2663): the client declares the extension in every request's
//     capabilities, the server decides per call to answer with a task
//     (resultType "task"), tasks/get carries the input requests and, once
//     the task ends, its result or error; tasks/update answers the input
//     requests, tasks/cancel is acknowledged.
type taskGen uint8

const (
	noTasks taskGen = iota
	legacyTasks
	extTasks
)

// tasksExtension is the identifier of the tasks extension.
const tasksExtension = "io.modelcontextprotocol/tasks"

// taskSupport is what a session learnt of the server's tasks at connect.
type taskSupport struct {
	gen    taskGen
	cancel bool // the server takes tasks/cancel
}

// negotiateTasks reads which generation of tasks the server speaks: the
// extension if the negotiated protocol has it and the server declared it,
// else the 2025-11-25 tasks if that protocol was negotiated and the
// server's capabilities, as it wrote them (go-sdk keeps no tasks member),
// declare task-augmented tools/call.
func negotiateTasks(init *mcp.InitializeResult, written json.RawMessage) taskSupport {
	if init.ProtocolVersion >= "2026-07-28" {
		if c := init.Capabilities; c != nil && c.Extensions[tasksExtension] != nil {
			return taskSupport{gen: extTasks, cancel: true}
		}
		return taskSupport{}
	}
	var caps struct {
		Tasks *struct {
			Cancel   json.RawMessage `json:"cancel"`
			Requests struct {
				Tools struct {
					Call json.RawMessage `json:"call"`
				} `json:"tools"`
			} `json:"requests"`
		} `json:"tasks"`
	}
	if init.ProtocolVersion != "2025-11-25" || json.Unmarshal(written, &caps) != nil || caps.Tasks == nil || !present(caps.Tasks.Requests.Tools.Call) {
		return taskSupport{}
	}
	return taskSupport{gen: legacyTasks, cancel: present(caps.Tasks.Cancel)}
}

// present reports whether a capability was declared: any value but null.
func present(v json.RawMessage) bool {
	return len(v) > 0 && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// A tool's execution.taskSupport (2025-11-25): a tool may be called as a
// task if optional, must be if required, and never is otherwise.
const (
	taskOptional = "optional"
	taskRequired = "required"
)

// taskSupportOf reads execution.taskSupport from a tool's execution member
// as the server wrote it; "" stands for absent or forbidden.
func taskSupportOf(execution json.RawMessage) string {
	var e struct {
		TaskSupport string `json:"taskSupport"`
	}
	if json.Unmarshal(execution, &e) != nil || e.TaskSupport != taskOptional && e.TaskSupport != taskRequired {
		return ""
	}
	return e.TaskSupport
}

// asTask reports whether a call of the named tool on s is sent as a task
// (2025-11-25): when the tool requires it. The extension's server decides
// by itself.
func (s *session) asTask(name string) bool {
	lt := s.catalog().listed[name]
	return s.tasks.gen == legacyTasks && lt != nil && lt.taskSupport == taskRequired
}

// wireTask is a task as either generation writes it: 2025-11-25 names its
// durations ttl and pollInterval, the extension ttlMs and pollIntervalMs
// and adds, in tasks/get, what the status calls for.
type wireTask struct {
	ResultType     string          `json:"resultType,omitempty"`
	TaskID         string          `json:"taskId"`
	Status         TaskStatus      `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTL            *float64        `json:"ttl,omitempty"`
	PollInterval   *float64        `json:"pollInterval,omitempty"`
	TTLMs          *float64        `json:"ttlMs,omitempty"`
	PollIntervalMs *float64        `json:"pollIntervalMs,omitempty"`
	InputRequests  json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`

	raw json.RawMessage // the extension's CreateTaskResult as it came
}

// check refuses a task no client could follow.
func (w *wireTask) check() error {
	switch {
	case w.TaskID == "":
		return errors.New("the task has no taskId")
	case !w.Status.known():
		return fmt.Errorf("the task %q has an unknown status %q", w.TaskID, w.Status)
	}
	return nil
}

// state is the task as a host reads it.
func (w *wireTask) state(tool string) TaskState {
	return TaskState{
		ID:           w.TaskID,
		Tool:         tool,
		Status:       w.Status,
		Message:      w.StatusMessage,
		CreatedAt:    timestamp(w.CreatedAt),
		UpdatedAt:    timestamp(w.LastUpdatedAt),
		TTL:          millis(w.TTL, w.TTLMs),
		PollInterval: millis(w.PollInterval, w.PollIntervalMs),
	}
}

// timestamp reads an ISO 8601 time, zero if it is not one.
func timestamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// millis is whichever of two durations in milliseconds is set, or zero.
func millis(legacy, ext *float64) time.Duration {
	ms := ext
	if ms == nil {
		ms = legacy
	}
	if ms == nil || *ms <= 0 || *ms > float64(maxTaskDuration/time.Millisecond) {
		return 0
	}
	return time.Duration(*ms * float64(time.Millisecond))
}

// maxTaskDuration bounds a duration a server writes, so that none overflows.
const maxTaskDuration = 100 * 365 * 24 * time.Hour

// taskCallParams are a tools/call's params with the member that asks for a
// task (2025-11-25 TaskAugmentedRequestParams), which go-sdk's
// CallToolParams lacks. go-sdk sends them as a tools/call through
// CallCustomMethod (sdkfix.TestGoSDKTaskAugmentation).
type taskCallParams struct {
	*mcp.CallToolParams
	// Task asks for a task; its ttl is left to the server.
	Task struct{} `json:"task"`
}

// created reads from raw, the answer to a tools/call if ok, the task the server
// made of it: a result of type "task" (the extension), or the task member
// of a CreateTaskResult when one was asked for (2025-11-25). It returns
// nil for an answer that is no task.
func (p *Provider) created(raw json.RawMessage, ok bool, name string, asked bool) (*wireTask, error) {
	op := operation{"tools/call", name}
	if !ok {
		if asked {
			return nil, &ProtocolError{Server: p.name, Op: op.String(), Err: errors.New("the task the server created cannot be read over this transport")}
		}
		return nil, nil
	}
	var answer struct {
		wireTask
		Task *wireTask `json:"task"`
	}
	if json.Unmarshal(raw, &answer) != nil {
		return nil, nil // not an object: judge says what is wrong
	}
	t := &answer.wireTask
	switch {
	case asked && answer.Task != nil:
		t = answer.Task
	case answer.ResultType != "task":
		return nil, nil
	default:
		t.raw = raw
	}
	if err := t.check(); err != nil {
		return nil, &ProtocolError{Server: p.name, Op: op.String(), Err: err}
	}
	return t, nil
}

// taskParams are the params of tasks/get, tasks/result and tasks/cancel,
// and with inputResponses of tasks/update.
type taskParams struct {
	TaskID         string               `json:"taskId"`
	InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"`
}

// taskRequest sends method about the task on s, within d (none if 0), and
// returns its result as it came. Over streamable HTTP the extension's
// requests name the task in the Mcp-Name header, so that a load balancer
// routes them to the replica that holds it (SEP-2663, Routing Headers).
func (p *Provider) taskRequest(ctx context.Context, s *session, method string, params taskParams, d time.Duration) (json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	err = p.request(ctx, s, operation{method, params.TaskID}, d, func(ctx context.Context, _ func()) error {
		if s.tasks.gen == extTasks {
			ctx = withRoute(ctx, params.TaskID)
		}
		var err error
		out, err = s.send(ctx, method, body)
		return err
	})
	return out, err
}

// getTask polls the task: tasks/get.
func (p *Provider) getTask(ctx context.Context, s *session, id string) (*wireTask, error) {
	raw, err := p.taskRequest(ctx, s, "tasks/get", taskParams{TaskID: id}, p.cfg.requestTimeout())
	if err != nil {
		return nil, err
	}
	var t wireTask
	if err = json.Unmarshal(raw, &t); err == nil {
		if err = t.check(); err == nil && t.TaskID != id {
			err = fmt.Errorf("the server answered with task %q", t.TaskID)
		}
	}
	if err != nil {
		return nil, &ProtocolError{Server: p.name, Op: operation{"tasks/get", id}.String(), Err: err}
	}
	return &t, nil
}

// taskResult fetches the task's result (2025-11-25): tasks/result, which
// the server answers once the task has ended, meanwhile sending the
// requests the task makes of the client. ctx alone bounds it.
func (p *Provider) taskResult(ctx context.Context, s *session, id string) (json.RawMessage, error) {
	return p.taskRequest(ctx, s, "tasks/result", taskParams{TaskID: id}, 0)
}

// cancelTask asks the server to cancel the task: tasks/cancel.
func (p *Provider) cancelTask(ctx context.Context, s *session, id string) error {
	_, err := p.taskRequest(ctx, s, "tasks/cancel", taskParams{TaskID: id}, p.cfg.requestTimeout())
	return err
}

// updateTask answers the task's input requests (the extension):
// tasks/update.
func (p *Provider) updateTask(ctx context.Context, s *session, id string, answers mcp.InputResponseMap) error {
	_, err := p.taskRequest(ctx, s, "tasks/update", taskParams{TaskID: id, InputResponses: answers}, p.cfg.requestTimeout())
	return err
}

// decodeResult decodes a tool's result that arrived raw (a task's), as a
// tools/call's is judged: a part go-sdk cannot decode is salvaged, and a
// result without content is refused.
func decodeResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	res, err := sdkfix.Decode(raw)
	if err != nil {
		return sdkfix.Salvage(raw, note)
	}
	if len(res.Content) == 0 && res.StructuredContent == nil {
		if err := sdkfix.Shape(raw); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// routeKey carries the task a request is about, for the Mcp-Name header.
var routeKey = ctxkey.New[string]("mcptool task route")

func withRoute(ctx context.Context, taskID string) context.Context { return routeKey.With(ctx, taskID) }

// route returns the task the request made with ctx is about, or "".
func route(ctx context.Context) string { return routeKey.Value(ctx) }
