package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A tools/call goes past go-sdk, but carries the _meta go-sdk writes in
// every request of protocol 2026-07-28 (the version, the client, its
// capabilities), as go-sdk's own listing of the tools on the same session
// does; and the log level the host asks for. In process and over HTTP.
func TestACallPastGoSDKCarriesGoSDKsMeta(t *testing.T) {
	keys := []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel}
	for _, over := range []string{"in process", "HTTP"} {
		var mu sync.Mutex
		seen := map[string]mcp.Meta{}
		s := newServer("meta")
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if p := req.GetParams(); p != nil {
					mu.Lock()
					seen[method] = p.GetMeta()
					mu.Unlock()
				}
				return next(ctx, method, req)
			}
		})
		addTool(s, "t", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
		level := mcpclient.WithNotices(mcpclient.Notices{LogLevel: func() mcp.LoggingLevel { return "warning" }})
		var p *mcpclient.Provider
		if over == "HTTP" {
			p = connectURL(t, serveHTTP(t, s, &mcp.StreamableHTTPOptions{Stateless: true}).URL, level)
		} else {
			p, _ = inProcess(t, s, level)
		}
		if got, err := callText(t.Context(), p, "t", nil); err != nil || got != "ok" {
			t.Fatalf("%s: %q, %v", over, got, err)
		}
		mu.Lock()
		listed, called := seen["tools/list"], seen["tools/call"]
		mu.Unlock()
		for _, k := range keys {
			want, _ := json.Marshal(listed[k])
			got, _ := json.Marshal(called[k])
			if listed[k] == nil || !reflect.DeepEqual(roundTrip(t, want), roundTrip(t, got)) {
				t.Errorf("%s: the call's %s is %s; go-sdk's listing sent %s", over, k, got, want)
			}
		}
	}
}

func roundTrip(t *testing.T, data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Arguments given as JSON that is not are refused before anything is
// sent.
func TestArgumentsThatAreNotJSON(t *testing.T) {
	p, count := inProcess(t, rawTools(nil, nil))
	_, err := p.CallToolResult(t.Context(), "fails", json.RawMessage(`{"a":`))
	if err == nil || err.Error() != `server "notes": tools/call "fails": the arguments are not valid JSON` {
		t.Fatalf("got %v", err)
	}
	if n := count.get("tools/call"); n != 0 {
		t.Fatalf("the server was sent %d calls", n)
	}
}

// A call whose caller gives up is cancelled on the server by
// notifications/cancelled, where nothing else ends it: in process, and
// over HTTP with a session (2025-11-25), whose POST's end the server does
// not take for a cancellation.
func TestACallGivenUpIsCancelledOnTheServer(t *testing.T) {
	for _, over := range []string{"in process", "HTTP session"} {
		blocked, ended := make(chan struct{}, 1), make(chan error, 1)
		var p *mcpclient.Provider
		if over == "HTTP session" {
			p = connectURL(t, serveHTTP(t, rawTools(blocked, ended), nil).URL)
		} else {
			p, _ = inProcess(t, rawTools(blocked, ended))
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := p.CallToolResult(ctx, "block", nil)
			done <- err
		}()
		<-blocked
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("%s: the call: %v; want it cancelled", over, err)
		}
		select {
		case err := <-ended:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: on the server: %v; want the call cancelled", over, err)
			}
		case <-time.After(10 * time.Second): // far past the notice's writing
			t.Errorf("%s: the server's call was never cancelled", over)
		}
	}
}
