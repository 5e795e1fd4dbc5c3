package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Proves that in a composition of two servers' handlers an alias runs on the
// server it names, and an alias naming neither is refused by both, as the
// library doc (docs/library.md) promises: a handler passes on what it does
// not serve.
func TestComposedAliases(t *testing.T) {
	a, _ := inProcess(t, demo.New(), mcpclient.WithName("fs"))
	b, _ := inProcess(t, demo.New(), mcpclient.WithName("dc"))
	h := tool.Compose(a.Handler(), b.Handler())
	call(t, h, "mcp__dc__add_note", `{"title": "on dc", "body": "b"}`)
	if got := call(t, b.Handler(), "list_notes", `{}`).Text(); !strings.Contains(got, "on dc") {
		t.Fatalf("the note did not land on dc: %q", got)
	}
	if got := call(t, a.Handler(), "list_notes", `{}`).Text(); strings.Contains(got, "on dc") {
		t.Fatalf("the alias of dc ran on fs: %q", got)
	}
	if _, err := h.Call(context.Background(), "mcp__bogus__echo", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("alias of no server: %v, want unserved", err)
	}
}

func TestHandlerGateAliasAndFailure(t *testing.T) {
	p, _ := inProcess(t, demo.New())
	ctx := context.Background()
	h := p.Handler()
	if _, err := h.Call(ctx, "nope", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("undiscovered name: %v, want unserved", err)
	}
	res := call(t, h, "mcp__notes__add_note", `{"title": "via alias", "body": "b"}`)
	if !strings.Contains(res.Text(), "added note #1") {
		t.Fatalf("alias call: %q", res.Text())
	}
	// An alias naming another server is not this handler's.
	if _, err := h.Call(ctx, "mcp__whatever__add_note", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("alias of another server: %v, want unserved", err)
	}
	// The failing tool: isError is a FailedError, not a refusal.
	_, err := h.Call(ctx, "get_note", json.RawMessage(`{"id": 7}`))
	var failed *tool.FailedError
	if !errors.As(err, &failed) || failed.Message != "no note with id 7" {
		t.Fatalf("isError through the handler: %v", err)
	}
	// CallToolResult keeps isError intact.
	r, err := p.CallToolResult(ctx, "get_note", map[string]any{"id": 7})
	if err != nil || !r.IsError {
		t.Fatalf("CallToolResult: %+v, %v", r, err)
	}
	// Relayed, every name goes to the server; an alias still runs its tool.
	res = call(t, p.Relay(), "mcp__notes__get_note", `{"id": 1}`)
	if !strings.Contains(res.Text(), "via alias") {
		t.Fatalf("relayed alias: %q", res.Text())
	}
	// Arguments that are not an object never reach the server: for the
	// model a refusal it can correct, for the host a configuration error.
	var refused *tool.RefusedError
	if _, err := h.Call(ctx, "get_note", json.RawMessage(`[1]`)); !errors.As(err, &refused) || !strings.Contains(refused.Message, "JSON object") {
		t.Fatalf("array arguments through the handler: %v", err)
	}
	var ce *mcpclient.ConfigError
	if _, err := callText(ctx, p, "get_note", []int{1}); !errors.As(err, &ce) || ce.Option != "arguments" {
		t.Fatalf("array arguments from the host: %v", err)
	}
	// Composition: the provider declines what it does not serve.
	local := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Text("local " + name), nil
	})
	if got := call(t, tool.Compose(h, local), "clock", "").Text(); got != "local clock" {
		t.Fatalf("compose fall-through: %q", got)
	}
}

// The handler checks arguments with the validator and the words of
// tool.Func and toolset: a violation is a refusal naming the argument, and
// the server never sees the call. The relay leaves them to the server, as
// does the handler for a schema that does not compile, which is logged once.
func TestHandlerChecksArguments(t *testing.T) {
	server := newServer("args")
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(string(req.Params.Arguments)), nil
	}
	server.AddTool(&mcp.Tool{Name: "get", InputSchema: json.RawMessage(`{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}`)}, echo)
	server.AddTool(&mcp.Tool{Name: "odd", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.invalid/x.json"}}}`)}, echo)
	var logs proctest.Buffer
	p, c := inProcess(t, server, mcpclient.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx := context.Background()
	h := p.Handler()

	local, err := tool.Func("get", "", func(context.Context, struct {
		ID int `json:"id"`
	}) (string, error) {
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, want := local.Handler.Call(ctx, "get", json.RawMessage(`{"id":"seven"}`))
	_, got := h.Call(ctx, "get", json.RawMessage(`{"id":"seven"}`))
	var refused *tool.RefusedError
	if !errors.As(got, &refused) || !strings.Contains(refused.Message, `argument "id"`) || got.Error() != want.Error() {
		t.Fatalf("got %v; want a refusal worded as tool.Func's: %v", got, want)
	}
	if n := c.get("tools/call"); n != 0 {
		t.Fatalf("the server saw %d refused calls", n)
	}
	if got := call(t, h, "get", `{"id":7}`).Text(); got != `{"id":7}` {
		t.Fatalf("valid arguments: %q", got)
	}
	if got := call(t, p.Relay(), "get", `{"id":"seven"}`).Text(); got != `{"id":"seven"}` {
		t.Fatalf("relayed: %q", got)
	}
	for range 2 {
		if got := call(t, h, "odd", `{"x":1}`).Text(); got != `{"x":1}` {
			t.Fatalf("a schema that does not compile: %q", got)
		}
	}
	if n := strings.Count(logs.String(), "the input schema does not compile"); n != 1 {
		t.Fatalf("logged %d times; want once:\n%s", n, logs.String())
	}
}

// Every call on a session sends the _meta go-sdk writes for the session
// (the protocol version, the client's capabilities), though the provider
// keeps a call's for the next; a call relayed for a client that declared
// its own capabilities sends those, before the provider's calls and after,
// and none of them.
func TestCallsSendTheSessionsMeta(t *testing.T) {
	server := newServer("meta")
	textTool(server, "meta", func(req *mcp.CallToolRequest) string {
		m := req.Params.GetMeta()
		data, _ := json.Marshal([]any{m[mcp.MetaKeyProtocolVersion], m[mcp.MetaKeyClientCapabilities]})
		return string(data)
	})
	ask := func(context.Context, *tool.Elicitation) (tool.Answer, error) { return tool.Answer{}, nil }
	p, _ := inProcess(t, server, mcpclient.WithRelay(), mcpclient.WithElicitation(ask))
	meta := func(ctx context.Context) string {
		t.Helper()
		res, err := p.CallToolResult(ctx, "meta", nil)
		if err != nil {
			t.Fatal(err)
		}
		return mcpclient.ToReply(res).Text()
	}
	relayed := mcpclient.WithCaller(context.Background(), mcpclient.Caller{Relay: mcpclient.ResultOnly{}, Capabilities: &mcp.ClientCapabilities{}})
	relay := func() {
		t.Helper()
		if got := meta(relayed); !strings.HasPrefix(got, `["2026-07-28",{`) || strings.Contains(got, `"elicitation"`) {
			t.Fatalf("a call relayed for a client without elicitation: %s", got)
		}
	}
	relay()
	first := meta(context.Background())
	if !strings.HasPrefix(first, `["2026-07-28",{`) || !strings.Contains(first, `"elicitation"`) {
		t.Fatalf("the provider's first call's _meta: %s; want the protocol version and the provider's capabilities", first)
	}
	for i := range 2 {
		if got := meta(context.Background()); got != first {
			t.Fatalf("call %d: %s; want %s", i+2, got, first)
		}
	}
	relay()
	if got := meta(context.Background()); got != first {
		t.Fatalf("the next call of the provider's own: %s; want %s", got, first)
	}
}
