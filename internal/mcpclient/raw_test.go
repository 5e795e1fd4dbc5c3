package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/tool"
)

// serverResult is a result as a server may write it, which go-sdk's
// decoding would not give back: keys out of order, a member go-sdk does not
// know, characters json.Marshal escapes.
const serverResult = `{"structuredContent":{"z":1,"a":[true,null]},"content":[{"type":"text","text":"<b>hi</b> & bye"}],"x-vendor":{"k":"v"},"resultType":"complete"}`

// rawServer serves server statelessly (protocol 2026-07-28) over streamable
// HTTP; every tools/call of the tool "verbatim" is answered with
// serverResult, written by hand, and every request seen counted by method.
func rawServer(t *testing.T, server *mcp.Server, opts *mcp.StreamableHTTPOptions) (*httptest.Server, *counter) {
	if opts == nil {
		opts = &mcp.StreamableHTTPOptions{}
	}
	opts.Stateless = true
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
	seen := &counter{}
	verbatim := hostile.Verbatim(inner, "verbatim", serverResult)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.add(r.Header.Get("Mcp-Method"))
		verbatim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

// rawTools is a server whose tools answer in each way a call can end.
func rawTools(blocked chan<- struct{}, ended chan<- error) *mcp.Server {
	s := newServer("raw")
	answer := func(res *mcp.CallToolResult, err error) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, err }
	}
	text := []mcp.Content{&mcp.TextContent{Text: "text"}}
	addTool(s, "verbatim", answer(nil, errors.New("answered by rawServer")))
	addTool(s, "fails", answer(&mcp.CallToolResult{IsError: true, Content: text}, nil))
	addTool(s, "refuses", answer(nil, &jsonrpc.Error{Code: -32042, Message: "not today"}))
	s.AddTool(&mcp.Tool{Name: "typed", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","required":["n"]}`)},
		answer(&mcp.CallToolResult{Content: text, StructuredContent: map[string]any{"m": 1}}, nil))
	s.AddTool(&mcp.Tool{Name: "headers", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, answer(&mcp.CallToolResult{Content: text}, nil))
	addTool(s, "asks", answer(&mcp.CallToolResult{RequestState: "asked once", InputRequests: mcp.InputRequestMap{
		"who": &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(`{"type":"object"}`)},
	}}, nil))
	addTool(s, "steps", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 2, Message: "half"})
		}
		return &mcp.CallToolResult{Content: text}, nil
	})
	addTool(s, "block", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		blocked <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	})
	return s
}

func connectRaw(t *testing.T, url string, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	return connectURL(t, url, append([]mcpclient.Option{mcpclient.WithName("raw")}, opts...)...)
}

// A call made raw returns the server's result byte for byte, where
// CallToolResult decodes and re-encodes it.
func TestCallToolRawKeepsTheServersBytes(t *testing.T) {
	srv, _ := rawServer(t, rawTools(nil, nil), nil)
	p := connectRaw(t, srv.URL)
	raw, res, err := p.CallToolRaw(context.Background(), "verbatim", nil)
	if err != nil || res != nil {
		t.Fatalf("got %v, %v; want the raw result", res, err)
	}
	if string(raw) != serverResult {
		t.Fatalf("raw result\n%s\nwant the server's\n%s", raw, serverResult)
	}
	decoded, err := p.CallToolResult(context.Background(), "verbatim", nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(decoded); bytes.Equal(again, raw) {
		t.Fatal("go-sdk's decoding kept the server's bytes: the raw path proves nothing")
	}
}

// A call made raw is judged as CallToolResult judges it: isError passed
// on, a server's JSON-RPC error a ProtocolError with its code, a result
// that breaks the tool's output schema a SchemaError, progress reported.
func TestCallToolRawJudgesTheAnswer(t *testing.T) {
	srv, _ := rawServer(t, rawTools(nil, nil), nil)
	p := connectRaw(t, srv.URL)
	ctx := context.Background()

	raw, _, err := p.CallToolRaw(ctx, "fails", nil)
	if err != nil || !bytes.Contains(raw, []byte(`"isError":true`)) {
		t.Errorf("fails: %s, %v; want the result marked isError", raw, err)
	}
	var pe *mcpclient.ProtocolError
	if _, _, err := p.CallToolRaw(ctx, "refuses", nil); !errors.As(err, &pe) || pe.Code != -32042 {
		t.Errorf("refuses: %v; want a ProtocolError with the server's code", err)
	}
	var se *mcpclient.SchemaError
	if _, _, err := p.CallToolRaw(ctx, "typed", nil); !errors.As(err, &se) || se.Pointer != "/structuredContent" {
		t.Errorf("typed: %v; want a SchemaError at /structuredContent", err)
	}
	// go-sdk hands a notification to its handler apart from the answer,
	// which may overtake it: the tool waits for its report to be seen.
	s := rawTools(nil, nil)
	seen := make(chan tool.Progress, 1)
	addTool(s, "reports", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2, Message: "half"})
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case seen <- <-seen:
		}
		return textResult("done"), nil
	})
	srv, _ = rawServer(t, s, nil)
	p = connectRaw(t, srv.URL)
	pctx := tool.WithProgress(ctx, func(p tool.Progress) { seen <- p })
	if raw, _, err := p.CallToolRaw(pctx, "reports", nil); err != nil || len(raw) == 0 {
		t.Fatalf("reports: %s, %v", raw, err)
	}
	if got := <-seen; got.Message != "half" {
		t.Errorf("progress %+v; want the server's report", got)
	}
}

// What a server answers in place of a result comes back decoded: a
// question (input_required), for the caller to answer in its next call.
func TestCallToolRawHandsBackAQuestion(t *testing.T) {
	srv, _ := rawServer(t, rawTools(nil, nil), nil)
	p := connectRaw(t, srv.URL, mcpclient.WithRelay())
	ctx := mcpclient.WithCaller(t.Context(), mcpclient.Caller{Relay: mcpclient.ResultOnly{}})
	raw, res, err := p.CallToolRaw(ctx, "asks", nil)
	if err != nil || raw != nil || res == nil || res.InputRequests["who"] == nil || res.RequestState != "asked once" {
		t.Fatalf("got %s, %+v, %v; want the server's question, decoded", raw, res, err)
	}
}

// ... and a task, followed to its end.
func TestCallToolRawFollowsATask(t *testing.T) {
	srv, _ := rawServer(t, demo.New(), nil)
	p := connectRaw(t, srv.URL)
	raw, res, err := p.CallToolRaw(context.Background(), "tag_report", json.RawMessage(`{"tag": "work"}`))
	if err != nil || raw != nil || res == nil || !strings.Contains(mcpclient.ToReply(res).Text(), `report on "work"`) {
		t.Fatalf("got %s, %q, %v; want the task's result, decoded", raw, mcpclient.ToReply(res).Text(), err)
	}
}

// A raw call whose caller gives up is cancelled on the server, which
// follows the request's end.
func TestCallToolRawCancelled(t *testing.T) {
	blocked, ended := make(chan struct{}, 1), make(chan error, 1)
	srv, _ := rawServer(t, rawTools(blocked, ended), &mcp.StreamableHTTPOptions{PropagateRequestCancellation: true})
	p := connectRaw(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := p.CallToolRaw(ctx, "block", nil)
		done <- err
	}()
	<-blocked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the call: %v; want it cancelled", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("on the server: %v; want the call cancelled", err)
	}
}

// A call is made raw on every transport that shows the raw messages:
// streamable HTTP of either generation, go-sdk's in-memory one, stdio, a
// tool whose arguments go in headers too; its bytes are what the server
// wrote, which CallToolResult decodes to the same result. A call whose
// content the span records comes back decoded.
func TestCallToolRawOnEveryTransport(t *testing.T) {
	stateless, _ := rawServer(t, rawTools(nil, nil), nil)
	stateful := serveHTTP(t, rawTools(nil, nil), nil)
	inProc := mcpclient.FromServer("raw", rawTools(nil, nil))
	t.Cleanup(func() { inProc.Close() })
	connect(t, inProc)
	overStdio := mcpclient.FromCommand(self(t), nil, mcpclient.WithEnv(demoEnv()))
	t.Cleanup(func() { overStdio.Close() })
	connect(t, overStdio)
	for _, tc := range []struct {
		name string
		p    *mcpclient.Provider
		tool string
		raw  bool
	}{
		{"2026-07-28 over HTTP", connectRaw(t, stateless.URL), "fails", true},
		{"2025-11-25 over HTTP", connectRaw(t, stateful.URL), "fails", true},
		{"in process", inProc, "fails", true},
		{"stdio", overStdio, "note_stats", true},
		{"x-mcp-header", connectRaw(t, stateless.URL), "headers", true},
		{"content recorded", connectRaw(t, stateless.URL, mcpclient.WithCallContent()), "fails", false},
	} {
		args := json.RawMessage(`{"text":"hi","region":"eu"}`)
		if tc.p == overStdio {
			// go-sdk's server names the unexpected arguments in an
			// order of its own, not the same twice.
			args = json.RawMessage(`{}`)
		}
		raw, res, err := tc.p.CallToolRaw(t.Context(), tc.tool, args)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (raw != nil) != tc.raw || (res != nil) == tc.raw {
			t.Fatalf("%s: raw %s, decoded %v; want raw %v", tc.name, raw, res, tc.raw)
		}
		if !tc.raw {
			continue
		}
		decoded, err := tc.p.CallToolResult(t.Context(), tc.tool, args)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var fromRaw mcp.CallToolResult
		if err := json.Unmarshal(raw, &fromRaw); err != nil {
			t.Fatalf("%s: %s: %v", tc.name, raw, err)
		}
		a, _ := json.Marshal(&fromRaw)
		b, _ := json.Marshal(decoded)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the raw result\n%s\ndecodes otherwise than the call's\n%s", tc.name, a, b)
		}
	}
}

// A raw call in flight when its HTTP server restarts is sent again for a
// read-only tool, and said to have an unknown outcome otherwise, as
// CallToolResult does.
func TestCallToolRawResendsAfterARestart(t *testing.T) {
	for _, name := range []string{"wait", "write"} {
		t.Run(name, func(t *testing.T) {
			srv := newRestartable(t, &mcp.StreamableHTTPOptions{Stateless: true})
			p := connectRaw(t, srv.URL, fastReconnect)
			type answer struct {
				raw json.RawMessage
				err error
			}
			done := make(chan answer, 1)
			go func() {
				raw, _, err := p.CallToolRaw(context.Background(), name, nil)
				done <- answer{raw, err}
			}()
			<-srv.began
			srv.restart()
			got := <-done
			if name == "wait" {
				if got.err != nil || !bytes.Contains(got.raw, []byte("answered by server 2")) {
					t.Fatalf("got %s, %v; want the call sent again", got.raw, got.err)
				}
				return
			}
			var te *mcpclient.TransportError
			if !errors.As(got.err, &te) || !te.OutcomeUnknown() {
				t.Fatalf("got %s, %v; want a TransportError saying the outcome is unknown", got.raw, got.err)
			}
		})
	}
}

// A server that holds a raw call's stream open after the answer does not
// hold the call: it returns with the answer, and the stream read on apart
// is cut (within finishWithin), its request ended on the server.
func TestCallToolRawStreamHeldOpen(t *testing.T) {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return rawTools(nil, nil) }, &mcp.StreamableHTTPOptions{Stateless: true})
	verbatim := hostile.Verbatim(inner, "verbatim", serverResult)
	cut := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		verbatim.ServeHTTP(w, r)
		if r.Header.Get("Mcp-Name") == "verbatim" {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			cut <- struct{}{}
		}
	}))
	t.Cleanup(srv.Close)
	p := connectRaw(t, srv.URL)
	raw, _, err := p.CallToolRaw(t.Context(), "verbatim", nil)
	if err != nil || string(raw) != serverResult {
		t.Fatalf("got %s, %v; want the server's result", raw, err)
	}
	select {
	case <-cut:
	case <-time.After(10 * time.Second): // far past finishWithin: the cut never came
		t.Fatal("the stream held open after the answer was not cut")
	}
}

// A raw call is bound by the provider's message limit as any call is: a
// result over it fails that call, saying so, and the next call goes on.
func TestCallToolRawBoundedByTheMessageLimit(t *testing.T) {
	s := rawTools(nil, nil)
	addTool(s, "huge", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(strings.Repeat("x", 64<<10)), nil
	})
	srv, _ := rawServer(t, s, nil)
	p := connectRaw(t, srv.URL, mcpclient.WithMaxMessageSize(16<<10))
	if raw, _, err := p.CallToolRaw(t.Context(), "huge", nil); err == nil || !strings.Contains(err.Error(), "size limit") {
		t.Fatalf("a 64 KiB result under a 16 KiB limit: %.100s, %v", raw, err)
	}
	if raw, _, err := p.CallToolRaw(t.Context(), "fails", nil); err != nil || raw == nil {
		t.Fatalf("the next call: %s, %v", raw, err)
	}
}
