package gateway_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The matrix server is the upstream of the differential test
// (matrix_test.go): go-sdk's server over every transport, and its twin in
// TypeScript (testdata/matrixserver.mjs), which serves the same tools,
// resources, prompts and completions and answers them in the same words.
//
//   - echo {text}: "echo: " and the text.
//   - sized {n}: a text of n bytes ([pattern]).
//   - log {key}: logs "log KEY" at info, "debug KEY" at debug and "end
//     KEY" at notice (logger "matrix"), and returns "logged" once told to
//     proceed {key}: what a server says during a call reaches the client
//     during the call, or is lost (a notice that comes after the answer
//     may be dropped, by the gateway as by any client);
//   - steps {key}: reports progress 1 of 2 and 2 of 2 ("step 1", "step
//     2"), and returns "done" once told to proceed {key}.
//   - block {key}: waits until it is cancelled; started {key} waits for it
//     to start, ended {key} for it to end, and says how.
//   - ask: asks the client during the call, a form (elicitation/create)
//     and a message (sampling/createMessage), and returns their answers.
//   - ask_in_result: asks the same in its result (input_required, protocol
//     2026-07-28), which go-sdk's server turns into requests during the
//     call for a client of an earlier protocol.
//   - touch {uri}: tells the subscribers of the resource uri it changed.
//   - task: a task of the tasks extension for a client of 2026-07-28 that
//     declares it (done at the first tasks/get), else answered at once;
//     either way its result is "task done".
//   - resources memo://matrix/readme ("read me") and the template
//     memo://matrix/sized/{n} (a text of n bytes), which may be subscribed
//     to;
//   - prompts greet {who} ("hello WHO") and sized {n} (a message of a text
//     of n bytes);
//   - completions: greet's who (Ada, Alan, Grace) and the template's n
//     (0, 4095, 4097), those that start with what was typed.

// matrixChildEnv makes the test binary the matrix server over stdio.
const matrixChildEnv = "MCPBRIDGE_MATRIX_CHILD"

// serveMatrixIfChild serves the matrix server on stdin and stdout and
// exits, when the test binary was started as one (matrixChildEnv=stdio).
func serveMatrixIfChild() {
	if os.Getenv(matrixChildEnv) != "stdio" {
		return
	}
	if err := newMatrixServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "matrix server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// pattern is a text of n bytes that says, every 8 bytes, where it is (its
// offset, in hex), so that a part lost, doubled or moved changes it.
func pattern(n int) string {
	b := make([]byte, 0, n+8)
	for i := 0; len(b) < n; i += 8 {
		s := strconv.FormatInt(int64(i), 16)
		b = append(b, "0000000"[min(len(s), 7):]...)
		b = append(b, s...)
		b = append(b, '.')
	}
	return string(b[:n])
}

// blocks are the calls of block by key: whether each started, and how it
// ended.
type blocks struct {
	mu    sync.Mutex
	calls map[string]*blockCall
}

type blockCall struct {
	once, goOn sync.Once
	started    chan struct{} // closed when it starts
	ended      chan string   // how it ended
	proceed    chan struct{} // closed by proceed
}

// start says the call started; a second call of the key says nothing more.
func (c *blockCall) start() { c.once.Do(func() { close(c.started) }) }

// wait waits for proceed, within blockFor.
func (c *blockCall) wait(ctx context.Context) {
	select {
	case <-c.proceed:
	case <-ctx.Done():
	case <-time.After(blockFor):
	}
}

func (b *blocks) of(key string) *blockCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.calls == nil {
		b.calls = map[string]*blockCall{}
	}
	c := b.calls[key]
	if c == nil {
		c = &blockCall{started: make(chan struct{}), ended: make(chan string, 1), proceed: make(chan struct{})}
		b.calls[key] = c
	}
	return c
}

// The bounds of block and ended: a cancellation that does not come within
// them is a failure of the test, not a wait for success.
const (
	blockFor = 20 * time.Second
	endedFor = 15 * time.Second
)

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

type keyIn struct {
	Key string `json:"key"`
}

// newMatrixServer makes a matrix server.
func newMatrixServer() *mcp.Server {
	var b blocks
	s := mcp.NewServer(&mcp.Implementation{Name: "matrix", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		CompletionHandler:  matrixComplete,
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return textResult("echo: " + in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sized", Description: "A text of n bytes"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return textResult(pattern(in.N)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Log a line"}, func(ctx context.Context, req *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "matrix", Data: "log " + in.Key})
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Logger: "matrix", Data: "debug " + in.Key})
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "matrix", Data: "end " + in.Key})
		b.of(in.Key).wait(ctx)
		return textResult("logged"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "steps", Description: "Report progress"}, func(ctx context.Context, req *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)})
			}
		}
		b.of(in.Key).wait(ctx)
		return textResult("done"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "proceed", Description: "Let log or steps answer"}, func(_ context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, any, error) {
		c := b.of(in.Key)
		c.goOn.Do(func() { close(c.proceed) })
		return textResult("proceeding"), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Wait to be cancelled"}, func(ctx context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, any, error) {
		c := b.of(in.Key)
		c.start()
		select {
		case <-ctx.Done():
			c.ended <- "cancelled"
			return nil, nil, ctx.Err()
		case <-time.After(blockFor):
			c.ended <- "not cancelled"
			return textResult("not cancelled"), nil, nil
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "started", Description: "Wait for block to start"}, func(ctx context.Context, _ *mcp.CallToolRequest, in keyIn) (*mcp.CallToolResult, any, error) {
		select {
		case <-b.of(in.Key).started:
			return textResult("block: started"), nil, nil
		case <-time.After(blockFor):
			return textResult("block: not started"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	type endedIn struct {
		Key    string `json:"key"`
		Within int    `json:"within,omitempty"` // milliseconds; 0 is endedFor
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ended", Description: "How block ended"}, func(ctx context.Context, _ *mcp.CallToolRequest, in endedIn) (*mcp.CallToolResult, any, error) {
		within := endedFor
		if in.Within > 0 {
			within = time.Duration(in.Within) * time.Millisecond
		}
		select {
		case how := <-b.of(in.Key).ended:
			return textResult("block: " + how), nil, nil
		case <-time.After(within):
			return textResult("block: still running"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the client during the call"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		var out []string
		e, err := req.Session.Elicit(ctx, nameForm())
		out = append(out, elicited(e, err))
		m, err := req.Session.CreateMessage(ctx, matrixQuestion())
		out = append(out, sampled(m, err))
		return textResult(strings.Join(out, "; ")), nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "ask_in_result", Description: "Ask the client in the result", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answers := req.Params.InputResponses
		if answers == nil {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": nameForm(), "message": matrixQuestion()}}, nil
		}
		e, _ := answers["name"].(*mcp.ElicitResult)
		m, _ := answers["message"].(*mcp.CreateMessageResult)
		if w, ok := answers["message"].(*mcp.CreateMessageWithToolsResult); ok && len(w.Content) == 1 {
			m = &mcp.CreateMessageResult{Model: w.Model, Role: w.Role, Content: w.Content[0]}
		}
		return textResult(elicited(e, nil) + "; " + sampled(m, nil)), nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Say a resource changed"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct {
		URI string `json:"uri"`
	}) (*mcp.CallToolResult, any, error) {
		if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: in.URI}); err != nil {
			return nil, nil, err
		}
		return textResult("touched " + in.URI), nil, nil
	})
	addMatrixTask(s)
	s.AddResource(&mcp.Resource{URI: "memo://matrix/readme", Name: "readme", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "memo://matrix/sized/{n}", Name: "sized", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		n, err := strconv.Atoi(strings.TrimPrefix(req.Params.URI, "memo://matrix/sized/"))
		if err != nil {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: pattern(n)}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "sized", Description: "A text of n bytes", Arguments: []*mcp.PromptArgument{{Name: "n", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		n, err := strconv.Atoi(req.Params.Arguments["n"])
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "n is not a number"}
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: pattern(n)}}}}, nil
	})
	return s
}

// matrixComplete completes greet's who and the sized template's n.
func matrixComplete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var all []string
	switch ref := req.Params.Ref; {
	case ref.Type == "ref/prompt" && ref.Name == "greet" && req.Params.Argument.Name == "who":
		all = []string{"Ada", "Alan", "Grace"}
	case ref.Type == "ref/resource" && ref.URI == "memo://matrix/sized/{n}" && req.Params.Argument.Name == "n":
		all = []string{"0", "4095", "4097"}
	}
	values := []string{}
	for _, v := range all {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// nameForm is the form ask asks the client to fill.
func nameForm() *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message:         "Who are you?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}
}

// matrixQuestion is the message ask asks the client's model.
func matrixQuestion() *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{MaxTokens: 50, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Say something."}}}}
}

func elicited(e *mcp.ElicitResult, err error) string {
	if err != nil {
		return "elicitation failed: " + err.Error()
	}
	if e == nil {
		return "elicitation: no answer"
	}
	return fmt.Sprintf("elicitation: %s %v", e.Action, e.Content["name"])
}

func sampled(m *mcp.CreateMessageResult, err error) string {
	if err != nil {
		return "sampling failed: " + err.Error()
	}
	if m == nil {
		return "sampling: no answer"
	}
	text, _ := m.Content.(*mcp.TextContent)
	if text == nil {
		return fmt.Sprintf("sampling: %s, not a text", m.Model)
	}
	return fmt.Sprintf("sampling: %s said %q", m.Model, text.Text)
}

// The matrix server's side of the tasks extension (SEP-2663): a task
// created by a call of task, done with its result at the first tasks/get.
const matrixTasks = "io.modelcontextprotocol/tasks"

type matrixTask struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs"`
	Result         *mcp.CallToolResult `json:"result,omitempty"`
}

type matrixTaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

func addMatrixTask(s *mcp.Server) {
	var mu sync.Mutex
	tasks := map[string]bool{}
	s.AddTool(&mcp.Tool{Name: "task", Description: "A task of the tasks extension", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("task done"), nil
		})
	created := time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	wire := func(id, status string) *matrixTask {
		return &matrixTask{ResultType: "complete", TaskID: id, Status: status, CreatedAt: created, LastUpdatedAt: created, TTLMs: 60000, PollIntervalMs: 1}
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
			if method != "tools/call" || !ok || p.Name != "task" || !declaresTasks(p.Meta) {
				return next(ctx, method, req)
			}
			id := rand.Text()
			mu.Lock()
			tasks[id] = true
			mu.Unlock()
			w := wire(id, "working")
			w.ResultType = "task"
			return w, nil
		}
	})
	mcp.AddReceivingCustomMethod(s, "tasks/get", func(_ context.Context, _ *mcp.ServerSession, p *matrixTaskParams) (*matrixTask, error) {
		mu.Lock()
		defer mu.Unlock()
		if !tasks[p.TaskID] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Failed to retrieve task: Task not found"}
		}
		w := wire(p.TaskID, "completed")
		w.Result = textResult("task done")
		return w, nil
	})
}

// declaresTasks reports whether a request's _meta declares the tasks
// extension on protocol 2026-07-28 or later.
func declaresTasks(meta mcp.Meta) bool {
	version, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	caps, _ := meta[mcp.MetaKeyClientCapabilities].(map[string]any)
	extensions, _ := caps["extensions"].(map[string]any)
	return version >= "2026-07-28" && extensions[matrixTasks] != nil
}
