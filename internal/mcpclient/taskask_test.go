package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// resultOnly is the caller of a client asked only in its call's result,
// which declared caps.
func resultOnly(caps *mcp.ClientCapabilities) mcpclient.Caller {
	return mcpclient.Caller{Relay: mcpclient.ResultOnly{}, Capabilities: caps}
}

// formElicitation declares elicitation in form mode.
var formElicitation = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}

// A task the provider follows for a caller asked only in results returns
// its question to the caller, the task left waiting; the caller's next
// call answers it (tasks/update) and gets the task's result.
func TestATaskAsksACallerAnsweredInResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcpclient.WithRelay())
		call(t, p.Handler(), "add_note", `{"title": "standup", "body": "at ten", "tags": ["work"]}`)
		_, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), resultOnly(formElicitation)), "tag_report", nil)
		var asking *mcpclient.AskingTask
		if !errors.As(err, &asking) || asking.Tool != "tag_report" || asking.ID == "" || len(asking.Requests) != 1 {
			t.Fatalf("got %v; want the task asking", err)
		}
		q, ok := asking.Requests["tag"].(*mcp.ElicitParams)
		if !ok || !strings.Contains(q.Message, "Which tag") || c.get("tasks/cancel") != 0 {
			t.Fatalf("asked %#v, %d tasks/cancel", asking.Requests, c.get("tasks/cancel"))
		}
		again := resultOnly(formElicitation)
		again.Answering = asking
		again.InputResponses = mcp.InputResponseMap{"tag": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tag": "work"}}}
		res, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), again), "tag_report", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcpclient.ToReply(res).Text(); !strings.Contains(got, `report on "work": 1 notes`) || c.get("tasks/update") != 1 || c.get("tools/call") != 2 {
			t.Errorf("result %q after %d tasks/update, %d tools/call", got, c.get("tasks/update"), c.get("tools/call"))
		}
		// Answering names the tool of the task: another's call is refused.
		if _, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), again), "broken_job", nil); !errors.As(err, new(*mcpclient.ConfigError)) {
			t.Errorf("answering the task with a call of another tool: %v", err)
		}
	})
}

// A caller that did not declare elicitation is told what the task asked
// and what it would need, and the task, which no one will answer, is
// cancelled.
func TestATaskAsksACallerThatCannotAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcpclient.WithRelay())
		_, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), resultOnly(&mcp.ClientCapabilities{})), "tag_report", nil)
		var ue *mcpclient.UnanswerableError
		if !errors.As(err, &ue) || ue.Server != "notes" || ue.Tool != "tag_report" {
			t.Fatalf("got %v; want an UnanswerableError", err)
		}
		msg := err.Error()
		for _, want := range []string{"Which tag should the report be on?", "declare elicitation", "io.modelcontextprotocol/tasks"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: want %q", msg, want)
			}
		}
		if strings.Count(msg, `server "notes"`) != 1 || c.get("tasks/cancel") != 1 {
			t.Errorf("%q, %d tasks/cancel; want the server named once, the task cancelled", msg, c.get("tasks/cancel"))
		}
	})
}

// A 2025-11-25 task asks on its own, outside any result, so a caller asked
// only in results cannot be asked: the server is told so in words its
// client's user can act on, not the provider's.
func TestALegacyTaskAsksACallerAnsweredInResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := connectLegacy(t, &legacyServer{}, mcpclient.WithRelay())
		res, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), resultOnly(formElicitation)), "ask", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcpclient.ToReply(res).Text(); !strings.Contains(got, "only in its call's result") || !strings.Contains(got, "with a session (protocol 2025-11-25)") {
			t.Errorf("the server was told %q", got)
		}
	})
}

// twoQuestions is a server of the tasks extension whose one tool, survey,
// is a task that asks two questions in turn, first and then second,
// repeating first in its input requests until the end (as a server may
// repeat a request it has its answer to), and completes with the answers.
// It records the keys of each tasks/update.
type twoQuestions struct {
	mu      sync.Mutex
	answers map[string]string
	updates [][]string
}

func newTwoQuestions() *twoQuestions { return &twoQuestions{answers: map[string]string{}} }

type surveyParams struct {
	mcp.ParamsBase
	TaskID         string                       `json:"taskId"`
	InputResponses map[string]*mcp.ElicitResult `json:"inputResponses,omitempty"`
}

type surveyTask struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	PollIntervalMs int64               `json:"pollIntervalMs"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
	Result         *mcp.CallToolResult `json:"result,omitempty"`
}

func (s *twoQuestions) server() *mcp.Server {
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	caps.AddExtension("io.modelcontextprotocol/tasks", nil)
	srv := mcp.NewServer(&mcp.Implementation{Name: "survey", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	srv.AddTool(&mcp.Tool{Name: "survey", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("called without the tasks extension")
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			return &surveyTask{ResultType: "task", TaskID: "S1", Status: "working", CreatedAt: stamp(time.Unix(0, 0)), LastUpdatedAt: stamp(time.Unix(0, 0)), PollIntervalMs: 100}, nil
		}
	})
	mcp.AddReceivingCustomMethod(srv, "tasks/get", func(context.Context, *mcp.ServerSession, *surveyParams) (*surveyTask, error) {
		return s.task(), nil
	})
	mcp.AddReceivingCustomMethod(srv, "tasks/update", func(_ context.Context, _ *mcp.ServerSession, p *surveyParams) (*surveyTask, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var keys []string
		for key, a := range p.InputResponses {
			s.answers[key], _ = a.Content["answer"].(string)
			keys = append(keys, key)
		}
		slices.Sort(keys)
		s.updates = append(s.updates, keys)
		return &surveyTask{ResultType: "complete", TaskID: "S1", Status: "working"}, nil
	})
	return srv
}

// task is the survey as a poll finds it.
func (s *twoQuestions) task() *surveyTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &surveyTask{ResultType: "complete", TaskID: "S1", Status: "input_required", CreatedAt: stamp(time.Unix(0, 0)), LastUpdatedAt: stamp(time.Unix(0, 0)), PollIntervalMs: 100}
	ask := func(q string) *mcp.ElicitParams {
		return &mcp.ElicitParams{Message: q, RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}}}`)}
	}
	switch first, second := s.answers["first"], s.answers["second"]; {
	case first == "":
		t.InputRequests = mcp.InputRequestMap{"first": ask("first?")}
	case second == "":
		t.InputRequests = mcp.InputRequestMap{"first": ask("first?"), "second": ask("second?")}
	default:
		t.Status = "completed"
		t.Result = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: first + " then " + second}}}
	}
	return t
}

// A task may ask its caller's client again after an answer: each round
// asks only what is new (a question the server repeats once answered is
// not asked again, nor answered twice), and the last gets the result.
func TestATaskAsksACallerAnsweredInResultsTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTwoQuestions()
		p, _ := inProcess(t, s.server(), mcpclient.WithRelay())
		caller := resultOnly(formElicitation)
		var asked []string
		for round := range 3 {
			res, err := p.CallToolResult(mcpclient.WithCaller(context.Background(), caller), "survey", nil)
			var asking *mcpclient.AskingTask
			if round == 2 {
				if err != nil || mcpclient.ToReply(res).Text() != "one then two" {
					t.Fatalf("round %d: %q, %v", round, mcpclient.ToReply(res).Text(), err)
				}
				break
			}
			if !errors.As(err, &asking) || len(asking.Requests) != 1 {
				t.Fatalf("round %d: %v", round, err)
			}
			caller.Answering, caller.InputResponses = asking, mcp.InputResponseMap{}
			for key := range asking.Requests {
				asked = append(asked, key)
				caller.InputResponses[key] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": map[string]string{"first": "one", "second": "two"}[key]}}
			}
		}
		if fmt.Sprint(asked) != "[first second]" || fmt.Sprint(s.updates) != "[[first] [second]]" {
			t.Errorf("asked %v, updates %v", asked, s.updates)
		}
	})
}
