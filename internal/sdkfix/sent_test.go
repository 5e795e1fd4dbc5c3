package sdkfix

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sentIDs is a sending middleware that keeps the id each request of a
// method went out with, as a Sent learnt it.
type sentIDs struct {
	method string
	ids    []jsonrpc.ID
}

func (s *sentIDs) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != s.method {
			return next(ctx, method, req)
		}
		ctx, sent := WithSent(ctx)
		res, err := next(ctx, method, req)
		if id, ok := sent.ID(); ok {
			s.ids = append(s.ids, id)
		}
		return res, err
	}
}

func TestSent(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	transports := map[string]func() mcp.Transport{
		"over a connection": func() mcp.Transport {
			st, ct := mcp.NewInMemoryTransports()
			if _, err := server.Connect(context.Background(), st, nil); err != nil {
				t.Fatal(err)
			}
			return &Capture{Transport: ct}
		},
		"over HTTP": func() mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true,
				HTTPClient: &http.Client{Transport: &HTTPTap{Next: http.DefaultTransport}}}
		},
	}
	for name, transport := range transports {
		ids := &sentIDs{method: "ping"}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		client.AddSendingMiddleware(ids.middleware)
		cs, err := client.Connect(context.Background(), transport(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := cs.Ping(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
		}
		cs.Close()
		if len(ids.ids) != 2 || ids.ids[0] == ids.ids[1] {
			t.Errorf("%s: ids %v; want the two pings' own", name, ids.ids)
		}
	}
}
