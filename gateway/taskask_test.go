package gateway_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// askingClient connects a client of 2026-07-28 that does not follow tasks
// and answers elicitations itself, one round trip at a time (go-sdk's own
// loop turned off), through rt.
func askingClient(t *testing.T, url string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	caps := &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}
	return connect(t, url, versions[0], &mcp.ClientOptions{Capabilities: caps, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}},
		&http.Client{Transport: rt})
}

// tagAnswer answers tag_report's question, whatever its key, with tag.
func tagAnswer(t *testing.T, res *mcp.CallToolResult, tag string) mcp.InputResponseMap {
	t.Helper()
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("not a question: %+v", res)
	}
	answers := mcp.InputResponseMap{}
	for key, req := range res.InputRequests {
		if e, ok := req.(*mcp.ElicitParams); !ok || !strings.Contains(e.Message, "Which tag") {
			t.Fatalf("input request %q: %#v", key, req)
		}
		answers[key] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tag": tag}}
	}
	return answers
}

// countCalls counts the tools/call POSTs a client sends.
type countCalls struct{ n atomic.Int64 }

func (c *countCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "tools/call" {
		c.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// A task the gateway follows for a 2026-07-28 client that does not follow
// tasks asks its question in the call's result: the client answers in its
// next call, with the state the result gave, which a replica sharing the
// task key takes as well as the one that made it, and gets the report: two
// POSTs, the task's question answered with tasks/update.
func TestATasksQuestionReachesAClientThatDoesNotFollowTasks(t *testing.T) {
	server := demoOverHTTP(t)
	key := &gateway.Options{TaskKeys: [][]byte{[]byte(strings.Repeat("k", 32))}}
	first, _ := serve(t, start(t, []config.Server{server}, key))
	second, _ := serve(t, start(t, []config.Server{server}, key))
	var posts countCalls
	asked, err := askingClient(t, first, &posts).CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	answers := tagAnswer(t, asked, "work")
	res, err := askingClient(t, second, &posts).CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{}, InputResponses: answers, RequestState: asked.RequestState})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); res.IsError || res.NeedsInput() || !strings.Contains(got, `report on "work": 1 notes`) {
		t.Errorf("result %q (%+v)", got, res)
	}
	if n := posts.n.Load(); n != 2 {
		t.Errorf("%d POSTs of tools/call, want 2", n)
	}
}

// go-sdk's own client of 2026-07-28, which answers a result's questions
// with its elicitation handler and calls again, gets the report of a task
// that asks, as one call: of the catalog's tool, or through call_tool for
// a client that asked for disclosure.
func TestGoSDKsClientAnswersATasksQuestion(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{demoOverHTTP(t)}, nil))
	for _, c := range []struct {
		url  string
		call *mcp.CallToolParams
	}{
		{url, &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{}}},
		{url + "?disclosure=1", &mcp.CallToolParams{Name: gateway.CallToolName, Arguments: map[string]any{"name": "demo_tag_report", "arguments": map[string]any{}}}},
	} {
		var asked atomic.Int64
		cs := connect(t, c.url, versions[0], &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tag": "work"}}, nil
		}}, nil)
		res, err := cs.CallTool(t.Context(), c.call)
		if err != nil {
			t.Fatalf("%s: %v", c.call.Name, err)
		}
		if got := text(t, res); res.IsError || !strings.Contains(got, `report on "work": 1 notes`) || asked.Load() != 1 {
			t.Errorf("%s: result %q, asked %d times", c.call.Name, got, asked.Load())
		}
	}
}

// A request state is its client's alone and good only as the gateway wrote
// it: another client's, or one altered, is refused as invalid params
// before the server sees its answers, so the task's own client still
// answers it.
func TestATasksRequestStateIsItsClientsAlone(t *testing.T) {
	g := start(t, []config.Server{demoOverHTTP(t)}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {Token: "a-token"},
			"bob":   {Token: "b-token"},
		},
	})
	url, _ := serve(t, g)
	alice, bob := askingClient(t, url, oauthtest.Bearer("a-token")), askingClient(t, url, oauthtest.Bearer("b-token"))
	call := func(cs *mcp.ClientSession, name string, answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}, InputResponses: answers, RequestState: state})
	}
	asked, err := call(alice, "demo_tag_report", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	stolen, answers := tagAnswer(t, asked, "stolen"), tagAnswer(t, asked, "work")
	state := asked.RequestState
	last := state[len(state)-1:]
	other := "A"
	if last == other {
		other = "B"
	}
	for _, c := range []struct {
		name, tool, state string
		who               *mcp.ClientSession
	}{
		{"another client's state", "demo_tag_report", state, bob},
		{"an altered state", "demo_tag_report", state[:len(state)-1] + other, alice},
		{"the state of another tool's call", "demo_broken_job", state, alice},
		{"a state cut short", "demo_tag_report", state[:len(state)/2], alice},
	} {
		_, err := call(c.who, c.tool, stolen, c.state)
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || strings.Contains(wire.Message, "stolen") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	res, err := call(alice, "demo_tag_report", answers, state)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !strings.Contains(got, `report on "work": 1 notes`) {
		t.Errorf("alice's result %q", got)
	}
}

// A client that cannot answer the task's question (it declares no
// elicitation) is told so in words it can act on: the server, the tool,
// the question, and what it would need.
func TestATasksQuestionAClientCannotAnswer(t *testing.T) {
	url, _ := serve(t, start(t, []config.Server{demoOverHTTP(t)}, nil))
	cs := connect(t, url, versions[0], &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "demo_tag_report", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got := text(t, res)
	for _, want := range []string{`server "demo"`, `"tag_report"`, "Which tag should the report be on?", "declare elicitation", "io.modelcontextprotocol/tasks"} {
		if !res.IsError || !strings.Contains(got, want) {
			t.Errorf("result %q: want %q", got, want)
		}
	}
	if strings.Contains(got, "multi round trip") {
		t.Errorf("result %q speaks of the gateway's insides", got)
	}
}
