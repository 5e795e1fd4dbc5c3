package gateway_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// A task of the extension as a client reads it: the answer to a
// tools/call that became one, or to tasks/get.
type taskWire struct {
	mcp.ResultBase
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	InputRequests  json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage `json:"result"`
	Error          *jsonrpc.Error  `json:"error"`
}

type taskParams struct {
	mcp.ParamsBase
	TaskID         string         `json:"taskId"`
	InputResponses map[string]any `json:"inputResponses,omitempty"`
}

// A taskClient is a go-sdk client of protocol 2026-07-28 that speaks the
// tasks extension by hand, as go-sdk has no tasks: it declares the
// extension on every request, reads a tools/call's answer raw (go-sdk
// decodes a task as an empty result), and sends tasks/get, tasks/update
// and tasks/cancel as custom methods.
type taskClient struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func newTaskClient(t *testing.T, url string, rt http.RoundTripper) *taskClient {
	t.Helper()
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	opts.Capabilities.AddExtension("io.modelcontextprotocol/tasks", nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "task-client", Version: "1"}, opts)
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := mcp.AddSendingCustomMethod[*taskParams, *taskWire](c, m); err != nil {
			t.Fatal(err)
		}
	}
	if rt == nil {
		rt = http.DefaultTransport
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &sdkfix.HTTPTap{Next: rt}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &taskClient{t, cs}
}

// call calls a tool and returns the task it became.
func (c *taskClient) call(name string, args map[string]any) *taskWire {
	c.t.Helper()
	ctx, caught := sdkfix.WithCatch(c.t.Context())
	defer caught.Release()
	if _, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args}); err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	raw, _ := caught.Raw()
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil || w.ResultType != "task" || w.TaskID == "" {
		c.t.Fatalf("%s: the answer is no task: %s", name, raw)
	}
	return &w
}

// ask sends method about the task id.
func (c *taskClient) ask(method, id string, answers map[string]any) (*taskWire, error) {
	return mcp.CallCustomMethod[*taskParams, *taskWire](c.t.Context(), c.cs, method, &taskParams{TaskID: id, InputResponses: answers})
}

// follow polls the task until it ends, at the interval the server asks,
// answering each question once with answer's content, and cancelling it
// at its first question if cancel.
func (c *taskClient) follow(task *taskWire, answer map[string]any, cancel bool) *taskWire {
	c.t.Helper()
	answered := map[string]bool{}
	for polls := 0; ; polls++ {
		// The demo's clock moves on as it is read (demoOverHTTP): each
		// poll finds the task further on, with no wait between them.
		if polls == maxPolls {
			c.t.Fatalf("task %q has not ended after %d polls", task.TaskID, polls)
		}
		w, err := c.ask("tasks/get", task.TaskID, nil)
		if err != nil {
			c.t.Fatalf("tasks/get: %v", err)
		}
		if w.TaskID != task.TaskID {
			c.t.Fatalf("tasks/get answered about task %q, not %q", w.TaskID, task.TaskID)
		}
		switch {
		case w.Status == "completed" || w.Status == "failed" || w.Status == "cancelled":
			return w
		case w.Status == "input_required" && cancel:
			if _, err := c.ask("tasks/cancel", task.TaskID, nil); err != nil {
				c.t.Fatalf("tasks/cancel: %v", err)
			}
		case w.Status == "input_required":
			var requests map[string]json.RawMessage
			if err := json.Unmarshal(w.InputRequests, &requests); err != nil {
				c.t.Fatalf("input requests %s: %v", w.InputRequests, err)
			}
			answers := map[string]any{}
			for key := range requests {
				if !answered[key] {
					answered[key] = true
					answers[key] = map[string]any{"action": "accept", "content": answer}
				}
			}
			if len(answers) > 0 {
				if _, err := c.ask("tasks/update", task.TaskID, answers); err != nil {
					c.t.Fatalf("tasks/update: %v", err)
				}
			}
		}
	}
}

// maxPolls bounds how often follow polls a task: far more than the demo's
// task takes on its ticking clock, so reaching it means the task is stuck.
const maxPolls = 1000

// demoOverHTTP serves one demo server over stateless streamable HTTP (so
// that it speaks 2026-07-28 and its tasks extension), its notes in a file
// of the test's, holding one note tagged work. Its tasks run on a clock
// that moves on 50 ms at each reading (a task's stage lasts 200 ms of it),
// so a task moves on as it is polled and the tests wait on no clock.
func demoOverHTTP(t *testing.T) config.Server {
	t.Helper()
	s := demo.New(demo.WithNotesFile(filepath.Join(t.TempDir(), "notes.json")), demo.WithClock(ticking(50*time.Millisecond)))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	cs := connect(t, srv.URL, versions[0], nil, nil)
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"title": "plan", "body": "the plan", "tags": []string{"work"}}}); err != nil {
		t.Fatal(err)
	}
	return config.Server{Name: "demo", URL: srv.URL, Required: true}
}

// The demo's tag_report becomes a task on its server; a 2026-07-28 client
// that follows tasks is handed it, through two replicas in turn that share
// a task key: it polls, answers the task's question with tasks/update, and
// reads the report, each request served by whichever replica the proxy
// picks.
func TestATaskIsHandedToAClientThatFollowsTasks(t *testing.T) {
	lb, hits := roundRobin(t, 2, demoOverHTTP(t), &gateway.Options{TaskKeys: [][]byte{[]byte(strings.Repeat("k", 32))}})
	c := newTaskClient(t, lb, nil)
	task := c.call("demo_tag_report", map[string]any{})
	if task.Status != "working" {
		t.Errorf("created %q", task.Status)
	}
	end := c.follow(task, map[string]any{"tag": "work"}, false)
	var res mcp.CallToolResult
	if err := json.Unmarshal(end.Result, &res); err != nil {
		t.Fatalf("result %s: %v", end.Result, err)
	}
	if end.Status != "completed" || res.IsError || !strings.Contains(text(t, &res), `report on "work": 1 notes`) {
		t.Errorf("ended %q with %s", end.Status, end.Result)
	}
	for i, n := range hits() {
		if n < 3 {
			t.Errorf("replica %d served %d requests: %v", i, n, hits())
		}
	}
}

// A client that does not follow tasks gets the same task's result as one
// call, the gateway following it: a 2026-07-28 client without the
// extension here, a 2025-11-25 session client in
// TestATaskAsksTheCallersClient.
func TestATaskIsOneCallToAClientThatDoesNotFollowTasks(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{demoOverHTTP(t)}, nil))
	cs := connect(t, url, versions[0], nil, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{"tag": "work"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); res.IsError || !strings.Contains(got, `report on "work": 1 notes`) {
		t.Errorf("result %q", got)
	}
}

// A handed task can be cancelled, and one that fails says why.
func TestAHandedTaskCancelledOrFailing(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{demoOverHTTP(t)}, nil))
	c := newTaskClient(t, url, nil)
	if end := c.follow(c.call("demo_tag_report", map[string]any{}), nil, true); end.Status != "cancelled" {
		t.Errorf("cancelled: ended %q (%s)", end.Status, end.StatusMessage)
	}
	end := c.follow(c.call("demo_broken_job", map[string]any{}), nil, false)
	if end.Status != "failed" || end.Error == nil || end.Error.Message != "the job broke halfway" {
		t.Errorf("broken_job: ended %q with %v", end.Status, end.Error)
	}
}

// call_tool, for a client that asked for disclosure, hands a task alike.
func TestCallToolHandsATask(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{demoOverHTTP(t)}, nil))
	c := newTaskClient(t, url+"?disclosure=1", nil)
	task := c.call(gateway.CallToolName, map[string]any{"name": "demo_broken_job", "arguments": map[string]any{}})
	if end := c.follow(task, nil, false); end.Status != "failed" {
		t.Errorf("ended %q", end.Status)
	}
}

// A task id is good only from the gateway, and only to the client whose
// call the task is.
func TestATaskIsItsClientsAlone(t *testing.T) {
	g := start(t, []config.Server{demoOverHTTP(t)}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {Token: "a-token"},
			"bob":   {Token: "b-token"},
		},
	})
	url, _ := serve(t, g)
	alice, bob := newTaskClient(t, url, oauthtest.Bearer("a-token")), newTaskClient(t, url, oauthtest.Bearer("b-token"))
	task := alice.call("demo_tag_report", map[string]any{"tag": "work"})
	for _, c := range []struct {
		who  *taskClient
		id   string
		name string
	}{{bob, task.TaskID, "another client's task"}, {alice, "made-up", "an id the gateway did not give"}} {
		var wire *jsonrpc.Error
		if _, err := c.who.ask("tasks/get", c.id, nil); !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if end := alice.follow(task, nil, false); end.Status != "completed" {
		t.Errorf("alice's task ended %q", end.Status)
	}
}

// noTask says whether err is the gateway's answer to method about an id it
// did not give, or gave another client: the same words for either, which
// never say what about the id was wrong.
func noTask(err error, method, id string) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && wire.Code == jsonrpc.CodeInvalidParams && wire.Message == fmt.Sprintf("%s: no task %q", method, id)
}

// forge rewrites a task id as a client that read it would: its parts are
// the server's name, the client's (base64url) and, last, the server's own
// id; part i (the last for -1) becomes with.
func forge(id string, i int, with string) string {
	parts := strings.Split(id, ".")
	if i < 0 {
		i = len(parts) - 1
	}
	parts[i] = with
	return strings.Join(parts, ".")
}

// A client that learned another's task id cannot make it its own: the id
// with its client's name rewritten to the client's own and re-encoded, or
// the client's own id with its server id swapped for the other's, is a
// task not found, to every method, as an id the gateway did not give is;
// the task goes on untouched.
func TestATaskIdCannotBeForged(t *testing.T) {
	g := start(t, []config.Server{demoOverHTTP(t)}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {Token: "a-token"},
			"bob":   {Token: "b-token"},
		},
	})
	url, _ := serve(t, g)
	alice, bob := newTaskClient(t, url, oauthtest.Bearer("a-token")), newTaskClient(t, url, oauthtest.Bearer("b-token"))
	task := alice.call("demo_tag_report", map[string]any{"tag": "work"})
	own := bob.call("demo_tag_report", map[string]any{"tag": "work"})
	secret := task.TaskID[strings.LastIndex(task.TaskID, ".")+1:]
	for _, c := range []struct{ name, id string }{
		{"alice's id renamed to bob", forge(task.TaskID, 1, base64.RawURLEncoding.EncodeToString([]byte("bob")))},
		{"bob's id carrying alice's server id", forge(own.TaskID, -1, secret)},
	} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			if _, err := bob.ask(method, c.id, map[string]any{"x": map[string]any{"action": "decline"}}); !noTask(err, method, c.id) {
				t.Errorf("%s: %s: %v", c.name, method, err)
			}
		}
	}
	if end := alice.follow(task, nil, false); end.Status != "completed" {
		t.Errorf("alice's task ended %q", end.Status)
	}
	if end := bob.follow(own, nil, false); end.Status != "completed" {
		t.Errorf("bob's task ended %q", end.Status)
	}
}

// A task id is good only at a gateway holding the key it was made with:
// a replica that shares the key routes it, and serves the task to its
// end; a gateway with another key, or with the random key Start makes
// without one, does not know it.
func TestATaskIdIsGoodWhereItsKeyIs(t *testing.T) {
	server := demoOverHTTP(t)
	key := []byte("a key the replicas share, 32 B+.")
	alice := func(keys ...[]byte) *gateway.Options {
		return &gateway.Options{Clients: map[string]gateway.Client{"alice": {Token: "a-token"}}, TaskKeys: keys}
	}
	made, _ := serve(t, start(t, []config.Server{server}, alice(key)))
	task := newTaskClient(t, made, oauthtest.Bearer("a-token")).call("demo_tag_report", map[string]any{"tag": "work"})
	for _, c := range []struct {
		name string
		key  []byte
		good bool
	}{
		{"another key", []byte("another key, as long as the 1st."), false},
		{"no key", nil, false},
		{"the same key", key, true},
	} {
		o := alice()
		if c.key != nil {
			o = alice(c.key)
		}
		url, _ := serve(t, start(t, []config.Server{server}, o))
		other := newTaskClient(t, url, oauthtest.Bearer("a-token"))
		_, err := other.ask("tasks/get", task.TaskID, nil)
		switch {
		case c.good && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.good:
			if end := other.follow(task, nil, false); end.Status != "completed" {
				t.Errorf("%s: the task ended %q", c.name, end.Status)
			}
		case !noTask(err, "tasks/get", task.TaskID):
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// A key is rotated without refusing the tasks in flight: a gateway given a
// new key with the old one after it still routes the ids made under the
// old one, and makes its own under the new one, which a gateway given the
// new key second (the first step of a rotation) takes too; once the old
// key is no longer listed, its ids are tasks not found.
func TestATaskIdOutlivesARotation(t *testing.T) {
	server := demoOverHTTP(t)
	old, current, next := []byte("the key before the rotation, 32B"), []byte("the key after the rotation, 32 B"), []byte("the key after the next one, 32 B")
	client := func(keys ...[]byte) *taskClient {
		o := &gateway.Options{Clients: map[string]gateway.Client{"alice": {Token: "a-token"}}, TaskKeys: keys}
		url, _ := serve(t, start(t, []config.Server{server}, o))
		return newTaskClient(t, url, oauthtest.Bearer("a-token"))
	}
	task := client(old).call("demo_tag_report", map[string]any{"tag": "work"})
	rotated := client(current, old)
	if _, err := rotated.ask("tasks/get", task.TaskID, nil); err != nil {
		t.Fatalf("an id of the old key, after the rotation: %v", err)
	}
	if end := rotated.follow(task, nil, false); end.Status != "completed" {
		t.Errorf("the old key's task ended %q", end.Status)
	}
	own := rotated.call("demo_tag_report", map[string]any{"tag": "work"})
	for _, c := range []struct {
		name string
		keys [][]byte
		id   string
		good bool
	}{
		{"the new key alone, its id", [][]byte{current}, own.TaskID, true},
		{"the old key alone, the new key's id", [][]byte{old}, own.TaskID, false},
		{"the new key added second, its id", [][]byte{old, current}, own.TaskID, true},
		{"the old key dropped, its id", [][]byte{next, current}, task.TaskID, false},
		{"the old key dropped, the new key's id", [][]byte{next, current}, own.TaskID, true},
	} {
		_, err := client(c.keys...).ask("tasks/get", c.id, nil)
		if c.good && err != nil || !c.good && !noTask(err, "tasks/get", c.id) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// A task key shorter than 32 bytes is no key: Start refuses it, naming the
// option and which key, rather than make or take ids a client could forge
// by guessing it; keys that verify without a first key to sign with are
// refused too.
func TestStartRefusesAShortTaskKey(t *testing.T) {
	long := []byte(strings.Repeat("k", 32))
	for _, c := range []struct {
		keys [][]byte
		want string
	}{
		{[][]byte{[]byte(strings.Repeat("k", 31))}, "TaskKeys[0]: a key of 31 bytes"},
		{[][]byte{long, long, []byte("short")}, "TaskKeys[2]: a key of 5 bytes"},
		{[][]byte{nil, long}, "TaskKeys[0]: a key of 0 bytes"},
	} {
		_, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{TaskKeys: c.keys})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start: %v, want %q", err, c.want)
		}
	}
}

// ticking returns a clock that starts at the wall clock's now and moves on
// by step at each reading.
func ticking(step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := time.Now()
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(step)
		return now
	}
}
