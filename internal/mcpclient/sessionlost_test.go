package mcpclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// An HTTP server that forgot its session (it restarted) and says so as the
// Python SDK does, 404 with a JSON-RPC error of an id not the request's
// ("server-error"), is given
// a new session: the read-only call that met the 404 is sent again on it
// and served, and so is every call after; one that is not read-only fails
// as a call whose connection was lost does, and the next is served. Before,
// go-sdk read the 404 as the call's own error and kept the session, so
// every call failed with "Session has been terminated" for ever.
func TestAForgottenHTTPSessionIsOpenedAnew(t *testing.T) {
	s, srv := hostile.Start(t, "forgets-session")
	p := connectURL(t, srv.URL, mcpclient.WithName("forgetful"), mcpclient.WithReconnect(mcpclient.Reconnect{MinDelay: time.Millisecond}))
	ctx := context.Background()
	if out, err := callText(ctx, p, "echo", map[string]any{"text": "one"}); err != nil || out != "one" {
		t.Fatalf("the first call: %q, %v", out, err)
	}
	// The server has forgotten the session.
	for i := range 3 {
		if out, err := callText(ctx, p, "peek", map[string]any{}); err != nil || out != "peeked" {
			t.Fatalf("read-only call %d after the session was forgotten: %q, %v", i+1, out, err)
		}
	}
	if n := s.Count("initialize"); n != 4 {
		t.Errorf("%d sessions opened, want 4: one at first and one a call", n)
	}
}
