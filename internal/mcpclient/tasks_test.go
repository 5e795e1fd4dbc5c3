package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// statuses records the task statuses a call reports.
type statuses struct {
	mu   sync.Mutex
	seen []string
}

func (s *statuses) record(st mcpclient.TaskState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, string(st.Status)+" "+st.Message)
}

func (s *statuses) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.seen, "; ")
}

// answer is an elicitation hook that answers every question with content,
// and counts them.
func answer(content map[string]any, asked *int) mcpclient.Option {
	return mcpclient.WithElicitation(func(context.Context, *tool.Elicitation) (tool.Answer, error) {
		*asked++
		return tool.Answer{Action: "accept", Content: content}, nil
	})
}

// userAway is an elicitation hook whose user never answers.
func userAway(ctx context.Context, _ *tool.Elicitation) (tool.Answer, error) {
	<-ctx.Done()
	return tool.Answer{}, ctx.Err()
}

// A tool the server runs as a task of the 2026-07-28 extension is one call
// to a model: the handler follows the task, answers the question it asks
// through the elicitation hook (once, though the server repeats it at each
// poll until answered), and returns the result; the host sees each status.
func TestExtensionTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		asked := 0
		p, c := inProcess(t, demo.New(), answer(map[string]any{"tag": "work"}, &asked))
		h := p.Handler()
		call(t, h, "add_note", `{"title": "standup", "body": "at ten", "tags": ["work"]}`)
		var st statuses
		ctx := mcpclient.WithTaskStatus(context.Background(), st.record)
		res, err := h.Call(ctx, "tag_report", json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text(), `report on "work": 1 notes`) || !strings.Contains(res.Text(), "standup") {
			t.Fatalf("result %q", res.Text())
		}
		if asked != 1 || c.get("tasks/update") != 1 {
			t.Errorf("asked %d times, %d tasks/update; want 1 and 1", asked, c.get("tasks/update"))
		}
		want := "working reading the notes; input_required waiting for a tag; working writing the report; completed report written"
		if st.String() != want {
			t.Errorf("statuses %q\nwant      %q", st.String(), want)
		}
	})
}

// A task that fails ends the call with the server's JSON-RPC error.
func TestExtensionTaskFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := inProcess(t, demo.New())
		_, err := p.Handler().Call(context.Background(), "broken_job", nil)
		var pe *mcpclient.ProtocolError
		if !errors.As(err, &pe) || pe.Code != jsonrpc.CodeInternalError || !strings.Contains(err.Error(), "the job broke halfway") {
			t.Fatalf("got %v; want the task's JSON-RPC error", err)
		}
	})
}

// A call whose context ends while its task runs cancels the task on the
// server.
func TestExtensionTaskCancelledWithTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := inProcess(t, demo.New(), mcpclient.WithElicitation(userAway))
		ctx, cancel := context.WithCancel(context.Background())
		var st statuses
		ctx = mcpclient.WithTaskStatus(ctx, func(s mcpclient.TaskState) {
			st.record(s)
			if s.Status == mcpclient.TaskInputRequired {
				cancel()
			}
		})
		_, err := p.Handler().Call(ctx, "tag_report", nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v; want the call cancelled", err)
		}
		// The host hears what the server says of the task once cancelled.
		if c.get("tasks/cancel") != 1 || !strings.HasSuffix(st.String(), "; cancelled cancelled at the client's request") {
			t.Fatalf("%d tasks/cancel, statuses %s; want 1, ending cancelled", c.get("tasks/cancel"), st.String())
		}
	})
}

// The call timeout bounds a task's whole course, and each change of status
// restarts it, as progress does.
func TestExtensionTaskTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each stage of a demo task takes 200 ms.
		p, c := inProcess(t, demo.New(), mcpclient.WithCallTimeout(300*time.Millisecond), mcpclient.WithElicitation(userAway))
		if _, err := p.Handler().Call(context.Background(), "tag_report", json.RawMessage(`{"tag": "x"}`)); err != nil {
			t.Fatalf("a task whose stages each end within the timeout: %v", err)
		}
		_, err := p.Handler().Call(context.Background(), "tag_report", nil) // waits for a tag no one gives
		var te *mcpclient.TransportError
		if !errors.As(err, &te) || !te.Timeout() || !tool.OutcomeUnknown(err) {
			t.Fatalf("got %v; want a timeout", err)
		}
		if c.get("tasks/cancel") != 1 {
			t.Fatalf("%d tasks/cancel; want the timed-out task cancelled", c.get("tasks/cancel"))
		}
	})
}

// Over streamable HTTP each request about an extension task names it in
// the Mcp-Name header, for a load balancer to route it to the replica that
// holds the task: the provider's own, and a caller's sent raw about a
// task handed to it.
func TestExtensionTaskRouting(t *testing.T) {
	srv := serveHTTP(t, demo.New(), &mcp.StreamableHTTPOptions{Stateless: true})
	p := connectURL(t, srv.URL)
	var task string
	ctx := mcpclient.WithTaskStatus(context.Background(), func(st mcpclient.TaskState) { task = st.ID })
	if _, err := p.CallToolResult(ctx, "tag_report", map[string]string{"tag": "work"}); err != nil || task == "" {
		t.Fatalf("the call's task %q: %v", task, err)
	}
	// A call for a caller that follows tasks returns the task, created,
	// which the caller follows with raw requests, routed alike.
	ctx = mcpclient.WithCaller(context.Background(), mcpclient.Caller{FollowsTasks: true})
	_, err := p.CallToolResult(ctx, "tag_report", map[string]string{"tag": "work"})
	var handed *mcpclient.HandedTask
	if !errors.As(err, &handed) || handed.Server != p.Name() || handed.Tool != "tag_report" || !strings.Contains(string(handed.Created), `"resultType":"task"`) {
		t.Fatalf("a call that follows tasks: %v", err)
	}
	raw, err := p.Request(context.Background(), "tasks/get", map[string]string{"taskId": handed.ID})
	if err != nil || !strings.Contains(string(raw), handed.ID) {
		t.Fatalf("tasks/get of the handed task: %s, %v", raw, err)
	}
	names := map[string]bool{}
	for _, r := range srv.seen() {
		if strings.HasPrefix(r.Header.Get("Mcp-Method"), "tasks/") {
			names[r.Header.Get("Mcp-Name")] = true
		}
	}
	if len(names) != 2 || !names[task] || !names[handed.ID] {
		t.Fatalf("Mcp-Name headers %v; want the tasks' ids %q and %q", names, task, handed.ID)
	}
}
