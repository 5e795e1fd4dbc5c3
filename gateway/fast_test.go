package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/policy"
)

// verbatimResult is a result as a server may write it, which go-sdk's
// decoding and encoding would not give back: keys out of order, a member
// go-sdk does not know, characters json.Marshal escapes.
const verbatimResult = `{"content":[{"type":"text","text":"<b>hi</b> & bye"}],"structuredContent":{"z":1,"a":[true,null]},"x-vendor":{"k":"v"},"resultType":"complete"}`

// statelessUpstream is a server of protocol 2026-07-28 over streamable
// HTTP whose tool verbatim answers verbatimResult, written by hand.
func statelessUpstream(t *testing.T) config.Server {
	return countedUpstream(t, new(atomic.Int32))
}

// countedUpstream is statelessUpstream counting the tools/call requests
// that reach it in calls.
func countedUpstream(t *testing.T, calls *atomic.Int32) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "verbatim", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("answered by the handler in front")
		})
	s.AddTool(&mcp.Tool{Name: "invalid", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "not those"}
		})
	url := serveStateless(t, s, func(h http.Handler) http.Handler {
		h = hostile.Verbatim(h, "verbatim", verbatimResult)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Mcp-Method") == "tools/call" {
				calls.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	return config.Server{Name: "up", URL: url, Required: true}
}

// serveFastOnly serves g's endpoint by the fast path alone
// (gateway.FastOnly), and returns its URL.
func serveFastOnly(t *testing.T, g *gateway.Gateway) string {
	srv := httptest.NewServer(gateway.FastOnly(g))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// A tools/call request as a client of 2026-07-28 sends it.
type callRequest struct {
	query   string            // of the endpoint's URL
	name    string            // the tool's, in params and Mcp-Name
	params  string            // members of params besides name and _meta, with a trailing comma
	meta    string            // members of _meta besides the protocol triple, with a trailing comma
	caps    string            // the client's capabilities, {} if empty
	headers map[string]string // set besides the protocol's
}

// newCall is req as the HTTP request a client sends to the endpoint at
// url, with ctx.
func newCall(t *testing.T, ctx context.Context, url string, req callRequest) *http.Request {
	t.Helper()
	caps := req.caps
	if caps == "" {
		caps = "{}"
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,%s"_meta":{%s"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
		req.name, req.params, req.meta, caps)
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, url+req.query, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", req.name)
	for k, v := range req.headers {
		r.Header.Set(k, v)
	}
	return r
}

// post sends req to the gateway at url and returns the HTTP status and
// the JSON-RPC response's result or error, as they came.
func post(t *testing.T, url string, req callRequest) (status int, result, rpcErr json.RawMessage) {
	t.Helper()
	resp, err := http.DefaultClient.Do(newCall(t, t.Context(), url, req))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
			data, ok = sc.Text(), true
		}
		if ok && json.Unmarshal([]byte(data), &answer) == nil && string(answer.ID) == "7" {
			return resp.StatusCode, answer.Result, answer.Error
		}
	}
	return resp.StatusCode, nil, nil
}

// A stateless client's call reaches it as the server wrote the result,
// byte for byte: the gateway decodes and re-encodes nothing of it. go-sdk's
// client reads it as any result, and the call is logged and traced as
// every request is: a server span in the client's trace, the call of the
// server a client span within it.
func TestFastPathKeepsTheServersResult(t *testing.T) {
	var logs proctest.Buffer
	rec := oteltest.New(t)
	g := start(t, []config.Server{statelessUpstream(t)}, &gateway.Options{
		Logger:    slog.New(slog.NewJSONHandler(&logs, nil)),
		Telemetry: mcptool.Telemetry{Tracer: rec.Traces},
	})
	url, _ := serve(t, g)
	ctx, host := rec.Traces.Tracer("test").Start(t.Context(), "host")
	meta, _ := json.Marshal(traceContext(ctx))
	status, result, rpcErr := post(t, url, callRequest{name: "up_verbatim", params: `"arguments":{"n":1},`, meta: string(meta[1:len(meta)-1]) + ","})
	host.End()
	if status != http.StatusOK || rpcErr != nil || string(result) != verbatimResult {
		t.Fatalf("status %d, error %s, result\n%s\nwant the server's\n%s", status, rpcErr, result, verbatimResult)
	}
	if !strings.Contains(logs.String(), `"method":"tools/call"`) || !strings.Contains(logs.String(), `"subject":"up_verbatim"`) {
		t.Errorf("logs %s; want the call's record", logs.String())
	}
	served := rec.Span(t, "tools/call up_verbatim")
	oteltest.ChildOf(t, served, rec.Span(t, "host"))
	oteltest.Has(t, served, map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "up_verbatim", "network.transport": "tcp"})
	oteltest.ChildOf(t, rec.Span(t, "tools/call verbatim"), served)
	cs := connect(t, url, "2026-07-28", nil, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up_verbatim", Arguments: map[string]any{}})
	if err != nil || text(t, res) != "<b>hi</b> & bye" {
		t.Fatalf("go-sdk's client: %v, %v", res, err)
	}
}

// A server's JSON-RPC error reaches the client with its code, and with the
// HTTP status SEP-2575 gives the code, as go-sdk's handler answers it.
func TestFastPathRelaysAnErrorWithItsStatus(t *testing.T) {
	g := start(t, []config.Server{statelessUpstream(t)}, nil)
	url, _ := serve(t, g)
	status, result, rpcErr := post(t, serveFastOnly(t, g), callRequest{name: "up_invalid"})
	if want := `{"code":-32602,"message":"not those"}`; status != http.StatusBadRequest || result != nil || string(rpcErr) != want {
		t.Fatalf("fast path: status %d, result %s, error %s; want 400 and the server's %s", status, result, rpcErr, want)
	}
	// Through go-sdk's server (a progress token sends the call there), the
	// client reads the same error: the server's words, not the gateway's
	// account of how it got them.
	_, _, rpcErr = post(t, url, callRequest{name: "up_invalid", meta: `"progressToken":1,`})
	if want := `{"code":-32602,"message":"not those"}`; string(rpcErr) != want {
		t.Fatalf("through go-sdk: error %s, want %s", rpcErr, want)
	}
}

// The fast path keeps the gateway's checks: a call whose arguments break
// the tool's schema is refused (a result marked isError), one the policy's
// approver declines too, and one over the client's rate limit with
// CodeRateLimited, before the server sees any of them. The endpoint here
// is the fast path alone (it answers 501 to what it leaves to go-sdk), so
// each answer is the fast path's own, as the server's bytes in the one
// call let through show.
func TestFastPathKeepsTheChecks(t *testing.T) {
	var calls atomic.Int32
	pol, err := policy.New(policy.Config{Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
		if bytes.Contains(c.Args, []byte("13")) {
			return policy.Refuse("not 13"), nil
		}
		return policy.Approve(), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	g := start(t, []config.Server{countedUpstream(t, &calls)}, &gateway.Options{Policy: pol, RateLimit: &gateway.RateLimit{Rate: 1e-6, Burst: 3}})
	url := serveFastOnly(t, g)
	status, result, rpcErr := post(t, url, callRequest{name: "up_verbatim", params: `"arguments":{"n":1},`})
	if status != http.StatusOK || rpcErr != nil || string(result) != verbatimResult || calls.Load() != 1 {
		t.Fatalf("a good call: status %d, error %s, result\n%s\nwant the server's\n%s", status, rpcErr, result, verbatimResult)
	}
	status, result, rpcErr = post(t, url, callRequest{name: "up_verbatim", params: `"arguments":{"n":"one"},`})
	if status != http.StatusOK || rpcErr != nil || !bytes.Contains(result, []byte(`"isError":true`)) || !bytes.Contains(result, []byte(`"resultType":"complete"`)) {
		t.Errorf("bad arguments: status %d, result %s, error %s; want a complete result marked isError", status, result, rpcErr)
	}
	status, result, rpcErr = post(t, url, callRequest{name: "up_verbatim", params: `"arguments":{"n":13},`})
	if status != http.StatusOK || rpcErr != nil || !bytes.Contains(result, []byte(`"isError":true`)) || !bytes.Contains(result, []byte("not 13")) {
		t.Errorf("a call the approver declines: status %d, result %s, error %s; want a result marked isError saying why", status, result, rpcErr)
	}
	status, result, rpcErr = post(t, url, callRequest{name: "up_verbatim", params: `"arguments":{"n":1},`})
	if status != http.StatusOK || result != nil || !bytes.Contains(rpcErr, []byte(fmt.Sprint(gateway.CodeRateLimited))) {
		t.Errorf("over the limit: status %d, result %s, error %s; want CodeRateLimited", status, result, rpcErr)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the server was called %d times, want once: a refused call reached it", n)
	}
}

// What the fast path does not serve whole goes to go-sdk, and is answered
// there: with the server's result as it came, as the fast path answers,
// or go-sdk's refusal of the request.
func TestFastPathLeavesTheRestToGoSDK(t *testing.T) {
	g := start(t, []config.Server{statelessUpstream(t)}, nil)
	url, _ := serve(t, g)
	fast := serveFastOnly(t, g)
	for _, tc := range []struct {
		what string
		req  callRequest
		fail string // in the error, or "" for a result
	}{
		{"a progress token", callRequest{name: "up_verbatim", meta: `"progressToken":"p1",`}, ""},
		{"a log level", callRequest{name: "up_verbatim", meta: `"io.modelcontextprotocol/logLevel":"debug",`}, ""},
		{"answers to a question", callRequest{name: "up_verbatim", params: `"inputResponses":{},"requestState":"s",`}, ""},
		{"disclosure", callRequest{name: "call_tool", query: "?disclosure=1", params: `"arguments":{"name":"up_verbatim","arguments":{}},`}, ""},
		{"an unknown tool", callRequest{name: "up_nothing"}, "up_nothing"},
		{"Mcp-Name not the body's", callRequest{name: "up_verbatim", headers: map[string]string{"Mcp-Name": "up_other"}}, "Mcp-Name"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if status, _, _ := post(t, fast, tc.req); status != http.StatusNotImplemented {
				t.Fatalf("the fast path answered it (status %d)", status)
			}
			_, result, rpcErr := post(t, url, tc.req)
			if tc.fail != "" {
				if result != nil || !bytes.Contains(rpcErr, []byte(tc.fail)) {
					t.Fatalf("result %s, error %s; want go-sdk's error naming %s", result, rpcErr, tc.fail)
				}
				return
			}
			// go-sdk's path writes the server's result as it came, as the
			// fast path does.
			if rpcErr != nil || string(result) != verbatimResult {
				t.Fatalf("result %s, error %s; want the server's\n%s", result, rpcErr, verbatimResult)
			}
		})
	}
}

// A call the fast path reads but sends through go-sdk's client (the
// server is not a 2026-07-28 HTTP server: here the demo over stdio, which
// speaks 2026-07-28 and writes a resultType of its own) reaches the client
// with exactly one resultType: a decoder that keeps the first member or
// refuses a repeated one reads it as go-sdk does.
func TestFastPathWritesOneResultType(t *testing.T) {
	g := start(t, []config.Server{demoServer(t)}, nil)
	status, result, rpcErr := post(t, serveFastOnly(t, g), callRequest{name: "demo_list_notes"})
	if status != http.StatusOK || rpcErr != nil {
		t.Fatalf("status %d, error %s", status, rpcErr)
	}
	if n := strings.Count(string(result), `"resultType"`); n != 1 {
		t.Fatalf("result with %d resultType members:\n%s", n, result)
	}
}
