package sdkfix

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call made with the connection's Caller gets its answer, which go-sdk
// never reads, while go-sdk's session goes on with requests of its own and
// hears what the server sends before the answer. A call fails with its
// context, and with the connection.
func TestCallerAnswersPastGoSDK(t *testing.T) {
	notice := &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"before"}`)}
	ct, _ := rawServer(t, map[string]answer{
		"tools/call": {result: json.RawMessage(`{"content":[],"x":1}`), notice: notice},
		"tools/list": {result: json.RawMessage(`{"tools":[]}`)},
		"wait":       {}, // never answered
	})
	heard := make(chan string, 1)
	capture := &Capture{Transport: ct}
	cs := connect(t, capture, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
		heard <- r.Params.Data.(string)
	}})
	caller := capture.Caller()
	if caller == nil {
		t.Fatal("a connection go-sdk reads wrapped is no Caller")
	}
	id, _ := jsonrpc.MakeID("ours-1")
	resp, err := caller.Call(t.Context(), &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"t"}`)})
	if err != nil || resp.ID != id || string(resp.Result) != `{"content":[],"x":1}` {
		t.Fatalf("answer %+v, %v", resp, err)
	}
	if got := <-heard; got != "before" {
		t.Fatalf("go-sdk heard %q", got)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatalf("go-sdk's own request after: %v", err)
	}
	// The same ID may not be awaited twice at once; once answered, it may
	// be used again.
	if _, err := caller.Call(t.Context(), &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"name":"t"}`)}); err != nil {
		t.Fatalf("an ID used again: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := caller.Call(ctx, &jsonrpc.Request{ID: id, Method: "wait"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call whose context ended: %v", err)
	}

	ended := make(chan error, 1)
	waiting, _ := jsonrpc.MakeID("ours-2")
	go func() {
		_, err := caller.Call(context.Background(), &jsonrpc.Request{ID: waiting, Method: "wait"})
		ended <- err
	}()
	cs.Close()
	if err := <-ended; err == nil {
		t.Fatal("a call outlived its connection")
	}
	if _, err := caller.Call(t.Context(), &jsonrpc.Request{ID: id, Method: "tools/call"}); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("a call after the connection closed: %v", err)
	}
}
