package sdkfix

import (
	"context"
	"encoding/json"
	"errors"
	"io"
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
