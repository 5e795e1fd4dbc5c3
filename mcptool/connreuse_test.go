package mcptool_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// Concurrent calls to a server over HTTP reuse the provider's
// connections: Go's default transport keeps two idle connections a host,
// so that under more concurrent calls most would open a connection of
// their own (a gateway in front of a server makes many).
func TestHTTPConnectionsReused(t *testing.T) {
	var opened atomic.Int32
	srv := httptest.NewUnstartedServer(demo.HTTPHandler(demo.WithNotesFile(t.TempDir() + "/notes.json")))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
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
	if n := opened.Load() - before; n > 2*concurrent {
		t.Errorf("%d calls, at most %d at a time, opened %d connections", concurrent*rounds, concurrent, n)
	}
}
