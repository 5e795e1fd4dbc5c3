package sdkfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// childEnv makes the test binary a child that reads its stdin to the end:
// a server that says nothing, for go-sdk's command transport.
const childEnv = "SDKFIX_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// An answer is what a raw server says to a request: a result, an error, or
// nothing at all (both nil).
type answer struct {
	result json.RawMessage
	err    *jsonrpc.Error
	notice *jsonrpc.Request // a notification sent first, if any
}

// initialized is a raw server's answer to initialize.
var initialized = answer{result: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)}

// notFound is the answer to a method a server does not know.
var notFound = answer{err: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}}

// rawServer answers a client over an in-memory pair, request by request,
// with what answers says for the method: it speaks JSON-RPC by hand, to say
// what go-sdk's server never would. server/discover is not found and
// initialize answered, unless answers says otherwise. It returns the
// client's transport and a channel closed once the client's side of the
// connection closed.
func rawServer(t *testing.T, answers map[string]answer) (mcp.Transport, <-chan struct{}) {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	conn, err := st.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(closed)
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.ID.IsValid() {
				continue
			}
			a, ok := answers[req.Method]
			switch {
			case ok:
			case req.Method == "server/discover":
				a = notFound
			case req.Method == "initialize":
				a = initialized
			}
			if a.result == nil && a.err == nil {
				continue
			}
			if a.notice != nil && conn.Write(context.Background(), a.notice) != nil {
				return
			}
			resp := &jsonrpc.Response{ID: req.ID, Result: a.result}
			if a.err != nil {
				resp.Error = a.err
			}
			if conn.Write(context.Background(), resp) != nil {
				return
			}
		}
	})
	t.Cleanup(func() {
		conn.Close()
		wg.Wait()
	})
	return ct, closed
}

// connect makes a go-sdk client session over t.
func connect(t *testing.T, t2 mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), t2, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// isJSONRPC reports whether err carries a JSON-RPC error.
func isJSONRPC(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire)
}

// A catch takes a plain result from go-sdk, which is handed an error in
// its place, and keeps what the server wrote; anything else (a task, an
// input_required result, content that is no array, a JSON-RPC error) goes
// to go-sdk, and is kept as well.
func TestCatchTakesAPlainResult(t *testing.T) {
	for _, tc := range []struct {
		result string
		taken  bool
	}{
		{`{"content":[{"type":"text","text":"<b>&</b>"}],"x-vendor":1}`, true},
		{`{"isError":true,"content":[],"resultType":"complete","structuredContent":{"b":1,"a":2}}`, true},
		{`{"resultType":"task","task":{"taskId":"t1"}}`, false},
		{`{"resultType":"input_required","inputRequests":{}}`, false},
		{`{"content":{}}`, false},
		{`{"content":[],"isError":"yes"}`, false},
		{`null`, false},
	} {
		for _, over := range []string{"a connection", "HTTP"} {
			var cs *mcp.ClientSession
			if over == "HTTP" {
				cs = connectHTTP(t, tc.result)
			} else {
				ct, _ := rawServer(t, map[string]answer{"tools/call": {result: json.RawMessage(tc.result)}})
				cs = connect(t, &Capture{Transport: ct}, nil)
			}
			ctx, caught := WithCatch(t.Context())
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t"})
			raw, taken := caught.Taken(err)
			caught.Release()
			if taken != tc.taken {
				t.Fatalf("%s over %s: taken %v (%v), want %v", tc.result, over, taken, err, tc.taken)
			}
			if taken && string(raw) != tc.result {
				t.Fatalf("over %s: took %s, want the server's %s", over, raw, tc.result)
			}
			if kept, ok := caught.Raw(); !taken && (!ok || string(kept) != tc.result) {
				t.Fatalf("%s over %s: kept %s", tc.result, over, kept)
			}
		}
	}
	// A server that answers with the error itself took nothing.
	ct, _ := rawServer(t, map[string]answer{"tools/call": {err: errTaken}})
	cs := connect(t, &Capture{Transport: ct}, nil)
	ctx, caught := WithCatch(t.Context())
	defer caught.Release()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t"}); err == nil {
		t.Fatal("the server's error was lost")
	} else if _, taken := caught.Taken(err); taken {
		t.Fatal("a server's error was taken for a taken result")
	}
}

// connectHTTP connects, through an [HTTPTap], to a server of protocol
// 2026-07-28 over streamable HTTP whose tool t answers result, written by
// hand.
func connectHTTP(t *testing.T, result string) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("answered in front")
	})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") != "tools/call" {
			inner.ServeHTTP(w, r)
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", req.ID, result)
	}))
	t.Cleanup(srv.Close)
	tap := &HTTPTap{Next: http.DefaultTransport, Logger: slog.New(slog.DiscardHandler)}
	return connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: tap}}, nil)
}
