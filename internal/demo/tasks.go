package demo

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasksExtension is the identifier of the tasks extension of protocol
// 2026-07-28 (SEP-2663), whose server side the demo plays for two tools:
// tag_report, which asks the client a question midway, and broken_job,
// which fails.
const tasksExtension = "io.modelcontextprotocol/tasks"

// The course of a demo task: each stage takes taskStep; the client is
// asked to poll every taskPoll; a task is kept for taskTTL.
const (
	taskStep = 200 * time.Millisecond
	taskPoll = 100 * time.Millisecond
	taskTTL  = 10 * time.Minute
)

const (
	tagReport = "tag_report"
	brokenJob = "broken_job"
)

// tagQuestion is the key of tag_report's one input request.
const tagQuestion = "tag"

type tagReportIn struct {
	Tag string `json:"tag,omitempty" jsonschema:"the tag whose notes to report on; asked for while the task runs when omitted"`
}

// A demoTask is one task of the extension. Its status is a function of the
// time (each stage lasts taskStep) and of what the client sent, read at
// each request: no goroutine runs it.
type demoTask struct {
	id, tool  string
	tag       string    // the tag reported on: given, or answered
	created   time.Time //
	answered  time.Time // when tasks/update brought the answer; zero before
	declined  bool      // the answer was no tag
	cancelled time.Time // when tasks/cancel came; zero if it did not
	result    *mcp.CallToolResult
}

// phase is where t stands at now: its status, what it says of it, and
// since when.
func (t *demoTask) phase(now time.Time) (status, message string, since time.Time) {
	step := t.created.Add(taskStep)
	switch {
	case !t.cancelled.IsZero():
		return "cancelled", "cancelled at the client's request", t.cancelled
	case now.Before(step):
		return "working", "reading the notes", t.created
	case t.tool == brokenJob:
		return "failed", "the job broke halfway", step
	case t.tag == "" && t.answered.IsZero():
		return "input_required", "waiting for a tag", step
	}
	from := step
	if !t.answered.IsZero() {
		from = t.answered
	}
	if now.Before(from.Add(taskStep)) {
		return "working", "writing the report", from
	}
	return "completed", "report written", from.Add(taskStep)
}

// taskWire is a task as the extension writes it: a CreateTaskResult
// (resultType "task") or a tasks/get result (resultType "complete", with
// what the status calls for).
type taskWire struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
	Result         *mcp.CallToolResult `json:"result,omitempty"`
	Error          *jsonrpc.Error      `json:"error,omitempty"`
}

// taskAck acknowledges tasks/update and tasks/cancel.
type taskAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

type taskParams struct {
	mcp.ParamsBase
	TaskID         string                       `json:"taskId"`
	InputResponses map[string]*mcp.ElicitResult `json:"inputResponses,omitempty"`
}

// taskStore keeps a server's tasks.
type taskStore struct {
	notes *store
	now   func() time.Time
	mu    sync.Mutex
	tasks map[string]*demoTask
}

// WithClock makes now the clock the server's tasks run on (each stage of
// a task lasts 200 ms of it), for a test that moves it rather than waits;
// nil is time.Now.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// addTaskTools adds tag_report and broken_job, served as tasks of the
// extension to a client that declares it on the call (on protocol
// 2026-07-28), and the methods that follow them. To any other client they
// answer at once (see [taskStore.direct]).
func addTaskTools(s *mcp.Server, st *store, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	ts := &taskStore{notes: st, now: now, tasks: map[string]*demoTask{}}
	s.AddTool(&mcp.Tool{
		Name:  tagReport,
		Title: "Tag report",
		Description: "Report on the notes carrying a tag, as a task (the io.modelcontextprotocol/tasks extension): " +
			"without a tag it asks the user which one while it runs.",
		InputSchema: inputSchema[tagReportIn](nil),
		Annotations: &mcp.ToolAnnotations{Title: "Tag report", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, ts.direct)
	s.AddTool(&mcp.Tool{
		Name:        brokenJob,
		Title:       "Broken job",
		Description: "A task (the io.modelcontextprotocol/tasks extension) that fails halfway with a JSON-RPC error, for testing.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{Title: "Broken job", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, ts.direct)
	s.AddReceivingMiddleware(ts.create)
	mcp.AddReceivingCustomMethod(s, "tasks/get", ts.get)
	mcp.AddReceivingCustomMethod(s, "tasks/update", ts.update)
	mcp.AddReceivingCustomMethod(s, "tasks/cancel", ts.cancel)
}

// direct answers a call of a task tool from a client that did not declare
// the extension, at once: tag_report asks for the tag it was not given as
// a multi-round-trip result (SEP-2322, which go-sdk turns into an
// elicitation/create for a client of an earlier protocol), and broken_job
// fails with its JSON-RPC error.
func (ts *taskStore) direct(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Params.Name == brokenJob {
		return nil, jobBroke()
	}
	t, err := newTask(req.Params, ts.now())
	if err != nil {
		return nil, err
	}
	if t.tag == "" {
		answer, ok := req.Params.InputResponses[tagQuestion].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{tagQuestion: askTag()}}, nil
		}
		t.take(answer)
	}
	return ts.report(t), nil
}

// newTask is the task a call of a task tool asks for.
func newTask(p *mcp.CallToolParamsRaw, now time.Time) (*demoTask, error) {
	var in tagReportIn
	if len(p.Arguments) > 0 {
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
		}
	}
	return &demoTask{id: rand.Text(), tool: p.Name, tag: strings.TrimSpace(in.Tag), created: now}, nil
}

// take takes in the answer to tag_report's question.
func (t *demoTask) take(answer *mcp.ElicitResult) {
	tag, _ := answer.Content["tag"].(string)
	t.tag = strings.TrimSpace(tag)
	t.declined = answer.Action != "accept" || t.tag == ""
}

// askTag is tag_report's question.
func askTag() *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         "Which tag should the report be on?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"tag":{"type":"string","title":"Tag","description":"a tag of your notes, such as work"}},"required":["tag"]}`),
	}
}

// jobBroke is broken_job's failure.
func jobBroke() error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the job broke halfway"}
}

// create answers a call of a task tool from a client that declared the
// extension with a new task.
func (ts *taskStore) create(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if method != "tools/call" || !ok || p.Name != tagReport && p.Name != brokenJob || !declaresTasks(p.Meta) {
			return next(ctx, method, req)
		}
		t, err := newTask(p, ts.now())
		if err != nil {
			return nil, err
		}
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.purge()
		ts.tasks[t.id] = t
		w := ts.wire(t, false)
		w.ResultType = "task"
		return w, nil
	}
}

func (ts *taskStore) get(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*taskWire, error) {
	var w *taskWire
	err := ts.act(p, func(t *demoTask, _ time.Time) { w = ts.wire(t, true) })
	return w, err
}

// update takes the answer to tag_report's question; an answer to no
// outstanding question is ignored, as SEP-2663 asks.
func (ts *taskStore) update(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*taskAck, error) {
	return ack(ts.act(p, func(t *demoTask, now time.Time) {
		answer := p.InputResponses[tagQuestion]
		if status, _, _ := t.phase(now); status != "input_required" || answer == nil {
			return
		}
		t.answered = now
		t.take(answer)
	}))
}

// cancel cancels a task that has not ended; one that has is left as it is.
func (ts *taskStore) cancel(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*taskAck, error) {
	return ack(ts.act(p, func(t *demoTask, now time.Time) {
		if status, _, _ := t.phase(now); status == "working" || status == "input_required" {
			t.cancelled = now
		}
	}))
}

// act runs fn, under the store's lock, on the task p names, for a client
// that declared the extension.
func (ts *taskStore) act(p *taskParams, fn func(t *demoTask, now time.Time)) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, err := ts.find(p)
	if err == nil {
		fn(t, ts.now())
	}
	return err
}

// ack acknowledges tasks/update or tasks/cancel, unless err.
func ack(err error) (*taskAck, error) {
	if err != nil {
		return nil, err
	}
	return &taskAck{ResultType: "complete"}, nil
}

// find returns the task p names, for a client that declared the extension.
// The caller holds the lock.
func (ts *taskStore) find(p *taskParams) (*demoTask, error) {
	if !declaresTasks(p.Meta) {
		return nil, missingTasks()
	}
	ts.purge()
	t, ok := ts.tasks[p.TaskID]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
	}
	return t, nil
}

// purge forgets the tasks past their ttl.
func (ts *taskStore) purge() {
	for id, t := range ts.tasks {
		if ts.now().Sub(t.created) > taskTTL {
			delete(ts.tasks, id)
		}
	}
}

// wire writes t as it stands now; detailed adds what the status calls for
// (tasks/get).
func (ts *taskStore) wire(t *demoTask, detailed bool) *taskWire {
	status, message, since := t.phase(ts.now())
	w := &taskWire{
		ResultType:     "complete",
		TaskID:         t.id,
		Status:         status,
		StatusMessage:  message,
		CreatedAt:      t.created.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  since.UTC().Format(time.RFC3339Nano),
		TTLMs:          taskTTL.Milliseconds(),
		PollIntervalMs: taskPoll.Milliseconds(),
	}
	if !detailed {
		return w
	}
	switch status {
	case "input_required":
		w.InputRequests = mcp.InputRequestMap{tagQuestion: askTag()}
	case "failed":
		w.Error = jobBroke().(*jsonrpc.Error)
	case "completed":
		if t.result == nil { // written once, when first seen done
			t.result = ts.report(t)
		}
		w.Result = t.result
	}
	return w
}

// report is tag_report's result: the notes carrying the tag.
func (ts *taskStore) report(t *demoTask) *mcp.CallToolResult {
	if t.declined {
		res := textResult("no tag was given, so there is nothing to report")
		res.IsError = true
		return res
	}
	notes, err := ts.notes.all()
	if err != nil {
		res := textResult("reading the notes: " + err.Error())
		res.IsError = true
		return res
	}
	var tagged []note
	for _, n := range notes {
		for _, tag := range n.Tags {
			if strings.EqualFold(tag, t.tag) {
				tagged = append(tagged, n)
				break
			}
		}
	}
	if len(tagged) == 0 {
		return textResult(fmt.Sprintf("report on %q: no notes carry it", t.tag))
	}
	return textResult(fmt.Sprintf("report on %q: %d notes\n%s", t.tag, len(tagged), lines(tagged)))
}

// declaresTasks reports whether a request's _meta declares the extension
// on protocol 2026-07-28 or later: SEP-2663 does not apply to an earlier
// protocol, whatever the client declared.
func declaresTasks(meta mcp.Meta) bool {
	version, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	extensions, _ := caps["extensions"].(map[string]any)
	return version >= "2026-07-28" && extensions[tasksExtension] != nil
}

// missingTasks is the error for a client that did not declare the
// extension and asks about a task (-32021, Missing Required Client
// Capability).
func missingTasks() error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + tasksExtension + `":{}}}}`),
	}
}
