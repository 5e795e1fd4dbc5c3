package mcpclient_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// legacyServer speaks the experimental tasks of protocol 2025-11-25,
// written by hand as go-sdk has none: its tools require a task (req), allow
// one (opt), or say nothing (plain); a task works for 300 ms, then
// completes (failed, with an isError result, for the tool fail). It records
// which calls asked for a task.
type legacyServer struct {
	cancel bool // declare tasks.cancel
	notify bool // send a status notification before answering the first poll
	poll   int  // the pollInterval the server asks for; 0 for 100 (ms)

	mu      sync.Mutex
	gets    int
	cancels int
	asTask  map[string]bool
	created map[string]time.Time
	tools   map[string]string // the tool of each task
}

func (s *legacyServer) answer(req *jsonrpc.Request) (any, *jsonrpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p struct {
		Name   string          `json:"name"`
		Task   json.RawMessage `json:"task"`
		TaskID string          `json:"taskId"`
	}
	json.Unmarshal(req.Params, &p)
	task := func(id string) map[string]any {
		status, updated := "working", s.created[id]
		if time.Since(s.created[id]) >= 300*time.Millisecond {
			status, updated = "completed", updated.Add(300*time.Millisecond)
			if s.tools[id] == "fail" {
				status = "failed"
			}
		}
		return map[string]any{"taskId": id, "status": status, "createdAt": stamp(s.created[id]), "lastUpdatedAt": stamp(updated), "ttl": nil, "pollInterval": cmp.Or(s.poll, 100)}
	}
	switch req.Method {
	case "initialize":
		caps := map[string]any{"tools": map[string]any{}, "tasks": map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}}
		if s.cancel {
			caps["tasks"].(map[string]any)["cancel"] = map[string]any{}
		}
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": map[string]any{"name": "legacy", "version": "1"}}, nil
	case "tools/list":
		tl := func(name, support string) map[string]any {
			t := map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
			if support != "" {
				t["execution"] = map[string]any{"taskSupport": support}
			}
			return t
		}
		return map[string]any{"tools": []any{tl("req", "required"), tl("opt", "optional"), tl("plain", ""), tl("fail", "required"), tl("ask", "required")}}, nil
	case "tools/call":
		s.asTask[p.Name] = p.Task != nil
		if p.Task == nil {
			if p.Name == "req" || p.Name == "fail" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "task augmentation required"}
			}
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "at once"}}}, nil
		}
		id := fmt.Sprint("task-", len(s.created)+1)
		s.created[id], s.tools[id] = time.Now(), p.Name
		return map[string]any{"task": task(id)}, nil
	case "tasks/get":
		s.gets++
		if _, ok := s.created[p.TaskID]; !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Task not found"}
		}
		return task(p.TaskID), nil
	case "tasks/cancel":
		s.cancels++
		return task(p.TaskID), nil
	case "tasks/result":
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "done " + s.tools[p.TaskID]}}, "isError": s.tools[p.TaskID] == "fail"}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// notice is the status notification the server sends, if it does, before
// it answers req.
func (s *legacyServer) notice(req *jsonrpc.Request) *jsonrpc.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var p struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(req.Params, &p)
	if !s.notify || req.Method != "tasks/get" || s.created[p.TaskID].IsZero() {
		return nil
	}
	s.notify = false
	created := s.created[p.TaskID]
	params, _ := json.Marshal(map[string]any{"taskId": p.TaskID, "status": "working", "statusMessage": "notified",
		"createdAt": stamp(created), "lastUpdatedAt": stamp(created.Add(time.Millisecond)), "ttl": nil})
	return &jsonrpc.Request{Method: "notifications/tasks/status", Params: params}
}

// polls counts the tasks/get the server answered.
func (s *legacyServer) polls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// asks reports whether req is the tasks/result of a task of the tool ask.
func (s *legacyServer) asks(req *jsonrpc.Request) bool {
	var p struct {
		TaskID string `json:"taskId"`
	}
	json.Unmarshal(req.Params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	return req.Method == "tasks/result" && s.tools[p.TaskID] == "ask"
}

// connectLegacy connects a provider to a new legacyServer in this process,
// with opts.
func connectLegacy(t *testing.T, s *legacyServer, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	s.asTask, s.created, s.tools = map[string]bool{}, map[string]time.Time{}, map[string]string{}
	st, ct := mcp.NewInMemoryTransports()
	conn, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		var asking *jsonrpc.Request // a tasks/result awaiting the host's sample
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			if resp, ok := msg.(*jsonrpc.Response); ok && asking != nil {
				// The host's answer to the sampling request: the task's result.
				var sampled struct{ Content any }
				json.Unmarshal(resp.Result, &sampled)
				text := fmt.Sprintf("sampled %v", sampled.Content)
				if resp.Error != nil {
					text = "not sampled: " + resp.Error.Error()
				}
				result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
				conn.Write(context.Background(), &jsonrpc.Response{ID: asking.ID, Result: result})
				asking = nil
				continue
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.ID.IsValid() {
				continue
			}
			if s.asks(req) {
				// The task ask asks the host's model while its result is
				// awaited, as 2025-11-25 servers send their requests.
				id, _ := jsonrpc.MakeID("sample-1")
				params, _ := json.Marshal(map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}})
				asking = req
				conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "sampling/createMessage", Params: params})
				continue
			}
			if n := s.notice(req); n != nil {
				conn.Write(context.Background(), n)
			}
			result, werr := s.answer(req)
			resp := &jsonrpc.Response{ID: req.ID, Error: werr}
			if werr == nil {
				resp.Result, _ = json.Marshal(result)
			}
			if conn.Write(context.Background(), resp) != nil {
				return
			}
		}
	})
	p := mcpclient.FromTransport("legacy", ct, opts...)
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		conn.Close()
		wg.Wait()
	})
	return p
}

// On protocol 2025-11-25 a tool that requires a task is called as one, and
// a tool that allows one or forbids one (by saying nothing) plainly.
func TestLegacyTasks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &legacyServer{cancel: true}
		p := connectLegacy(t, s)
		h := p.Handler()
		for name, want := range map[string]string{"req": "done req", "opt": "at once", "plain": "at once"} {
			if got := call(t, h, name, `{}`).Text(); got != want {
				t.Errorf("%s: %q, want %q", name, got, want)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.asTask["req"] || s.asTask["opt"] || s.asTask["plain"] {
			t.Fatalf("calls as tasks %v; want req alone", s.asTask)
		}
	})
}

// A 2025-11-25 task that failed has a result marked isError, which the
// model reads as the tool's failure.
func TestLegacyTaskFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, err := connectLegacy(t, &legacyServer{}).Handler().Call(context.Background(), "fail", nil)
		var fe *tool.FailedError
		if !errors.As(err, &fe) || fe.Message != "done fail" {
			t.Fatalf("got %v; want the task's isError result", err)
		}
	})
}

// A call whose context ends while its task runs cancels the task on a
// server that declared tasks.cancel, and leaves it to run on one that did
// not, which cannot be asked.
func TestLegacyTaskCancelledWithTheCall(t *testing.T) {
	for _, declared := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			s := &legacyServer{cancel: declared}
			p := connectLegacy(t, s)
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond) // the task takes 300
			defer cancel()
			if _, err := p.CallToolResult(ctx, "req", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v; want the call's deadline", err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if want := map[bool]int{true: 1, false: 0}[declared]; s.cancels != want {
				t.Fatalf("tasks.cancel declared %v: %d tasks/cancel, want %d", declared, s.cancels, want)
			}
		})
	}
}

// A status notification (which a 2025-11-25 server may send) is taken in
// as a poll's answer would be; a poll's answer older than it is not news.
func TestLegacyTaskStatusNotification(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := connectLegacy(t, &legacyServer{notify: true})
		var st statuses
		if _, err := p.Handler().Call(mcpclient.WithTaskStatus(context.Background(), st.record), "req", nil); err != nil {
			t.Fatal(err)
		}
		if st.String() != "working ; working notified; completed " {
			t.Fatalf("statuses %q", st.String())
		}
	})
}

// A server that asks to be polled without pause is polled every 50 ms.
func TestTaskPollIntervalBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &legacyServer{poll: 1}
		call(t, connectLegacy(t, s).Handler(), "req", `{}`) // a task of 300 ms
		if n := s.polls(); n > 6 {
			t.Fatalf("%d polls in 300 ms", n)
		}
	})
}

// A 2025-11-25 task's requests to the host (here its model), which the
// server sends while tasks/result is pending, are answered: the call
// following the task is in flight until it ends.
func TestLegacyTaskSamples(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &scriptedModel{answer: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "sampled text"}}}}
		p := connectLegacy(t, &legacyServer{}, mcpclient.WithSampling(mcpclient.Sampling{Model: model}))
		if got := call(t, p.Handler(), "ask", `{}`).Text(); !strings.Contains(got, "sampled text") {
			t.Fatalf("called: %q", got)
		}
	})
}
