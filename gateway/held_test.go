package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// asksOnItsOwn is a server of protocol 2025-11-25 (with sessions) whose
// tool ask asks its client for a name during the call, and greets it;
// what became of each question (its answer, or why it failed) is sent on
// outcomes.
func asksOnItsOwn(t *testing.T, outcomes chan<- string) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "own", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			outcomes <- "failed: " + err.Error()
			return nil, nil, err
		}
		name, _ := res.Content["name"].(string)
		outcomes <- "answered " + name
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + name}}}, nil, nil
	})
	return config.Server{Name: "own", URL: serveSessions(t, s), Required: true}
}

// firstAsk is a 2026-07-28 client's call of own_ask, declaring
// elicitation, as it goes on the wire.
var firstAsk = callRequest{name: "own_ask", params: `"arguments":{},`}

// answerAsk is the call of own_ask again with the answer to the question
// q and the state the gateway gave with it.
func answerAsk(q, state string) callRequest {
	return callRequest{name: "own_ask", params: fmt.Sprintf(`"arguments":{},"inputResponses":{%q:{"action":"accept","content":{"name":"Ada"}}},"requestState":%q,`, q, state)}
}

// askedState reads an input_required result: the key of its one question,
// and its request state.
func askedState(t *testing.T, result json.RawMessage) (string, string) {
	t.Helper()
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(result, &res); err != nil || res.ResultType != "input_required" || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("want a question in the result, got %s", result)
	}
	for q := range res.InputRequests {
		return q, res.RequestState
	}
	panic("unreachable")
}

// withElicitation gives a call request the client capability elicitation.
func withElicitation(r callRequest) callRequest {
	r.caps = `{"elicitation":{}}`
	return r
}

// A call held for a stateless client's answer lives in the replica that
// holds it: the answer brought to another replica is refused, saying so,
// and the one that holds it takes it. A call whose client never answers
// ends, cancelling the server's question; a client holds no more calls
// than its calls' bound.
func TestAHeldCallIsItsReplicasAndEnds(t *testing.T) {
	outcomes := make(chan string, 8)
	up := asksOnItsOwn(t, outcomes)
	keys := [][]byte{[]byte(strings.Repeat("k", 32))}
	a, _ := serve(t, start(t, []config.Server{up}, &gateway.Options{TaskKeys: keys}))
	b, _ := serve(t, start(t, []config.Server{up}, &gateway.Options{TaskKeys: keys}))

	_, result, rpcErr := post(t, a, withElicitation(firstAsk))
	if rpcErr != nil {
		t.Fatalf("the first call: %s", rpcErr)
	}
	q, state := askedState(t, result)
	if _, _, rpcErr := post(t, b, withElicitation(answerAsk(q, state))); !strings.Contains(string(rpcErr), "another replica") {
		t.Fatalf("the answer brought to another replica: %s; want a refusal saying so", rpcErr)
	}
	_, result, rpcErr = post(t, a, withElicitation(answerAsk(q, state)))
	if rpcErr != nil || !strings.Contains(string(result), "hello Ada") {
		t.Fatalf("the answer brought to the replica holding the call: %s %s", result, rpcErr)
	}
	if got := <-outcomes; got != "answered Ada" {
		t.Fatalf("the server's question: %s", got)
	}

	// A client that does not answer: its call ends, and the server's
	// question with it; the held call's slot is free again.
	quick := start(t, []config.Server{up}, &gateway.Options{Limits: gateway.Limits{SessionIdle: 1, CallsPerClient: 1}})
	c, _ := serve(t, quick)
	if _, result, _ := post(t, c, withElicitation(firstAsk)); result != nil {
		askedState(t, result)
	}
	if got := <-outcomes; !strings.HasPrefix(got, "failed") {
		t.Fatalf("the question of a call whose client never answered: %s", got)
	}

	// A client's held calls are bounded as its calls are.
	bounded, _ := serve(t, start(t, []config.Server{up}, &gateway.Options{Limits: gateway.Limits{CallsPerClient: 1}}))
	_, result, _ = post(t, bounded, withElicitation(firstAsk))
	askedState(t, result)
	if _, _, rpcErr := post(t, bounded, withElicitation(firstAsk)); !strings.Contains(string(rpcErr), "CallsPerClient") {
		t.Fatalf("a second held call past the client's bound: %s", rpcErr)
	}
}
