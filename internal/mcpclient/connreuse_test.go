package mcpclient_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// Concurrent calls to a server over HTTP reuse the provider's
// connections: Go's default transport keeps two idle connections a host,
// so that under more concurrent calls most would open a connection of
// their own (a gateway in front of a server makes many).
func TestHTTPConnectionsReused(t *testing.T) {
	srv, opened := countingConnections(t, demo.HTTPHandler(demo.WithNotesFile(t.TempDir()+"/notes.json")))
	p := connectURL(t, srv.URL)
	const concurrent, rounds = 16, 10
	before := opened.Load()
	for range rounds {
		var wg sync.WaitGroup
		for range concurrent {
			wg.Go(func() {
				if _, err := p.Handler().Call(context.Background(), "list_notes", json.RawMessage(`{}`)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	// With Go's two idle connections, each round would open about
	// concurrent-2 of its own: 140 in all. With the pool, a round's calls
	// reuse the last round's; a dial that lost its race to a returning
	// connection (more of them on a loaded machine) is kept idle too.
	if n := opened.Load() - before; n > 4*concurrent {
		t.Errorf("%d calls, at most %d at a time, opened %d connections", concurrent*rounds, concurrent, n)
	}
}

// Calls made raw, one after the other, reuse their connection: the rest of
// each answer's stream is read, where closing it unread would close the
// connection.
func TestRawCallsReuseTheConnection(t *testing.T) {
	srv, opened := countingConnections(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return rawTools(nil, nil) },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	p := connectRaw(t, srv.URL)
	before := opened.Load()
	const calls = 100
	for range calls {
		if raw, _, err := p.CallToolRaw(t.Context(), "fails", json.RawMessage(`{}`)); err != nil || raw == nil {
			t.Fatalf("CallToolRaw: %s, %v", raw, err)
		}
	}
	if n := opened.Load() - before; n > 5 {
		t.Errorf("%d raw calls one after the other opened %d connections, want at most 5", calls, n)
	}
}

// countingConnections serves h until the test ends, counting the
// connections clients open to it.
func countingConnections(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int32) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &opened
}
