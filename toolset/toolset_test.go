package toolset_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A server's provider options (Options.Server) add to its config: a field
// they leave zero keeps the config's setting, here the description cap, and
// a field they set wins over it.
func TestServerOptionsKeepTheConfigsSettings(t *testing.T) {
	long := strings.Repeat("Says hello. ", 30)
	s := mcp.NewServer(&mcp.Implementation{Name: "hello"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: long}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	cfg := &config.Config{Servers: []config.Server{{Name: "hello", URL: srv.URL, MaxDescription: 24}}}

	for _, c := range []struct {
		name   string
		server *mcptool.Options
		max    int
	}{
		{"zero", &mcptool.Options{Name: "hello"}, 24},
		{"set", &mcptool.Options{Limits: mcptool.Limits{Description: 48}}, 48},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, err := toolset.Start(t.Context(), cfg, &toolset.Options{Server: func(config.Server) *mcptool.Options { return c.server }})
			if err != nil {
				t.Fatal(err)
			}
			defer ts.Close()
			set, err := ts.Offer(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Definitions) != 1 {
				t.Fatalf("got %d tools, want 1", len(set.Definitions))
			}
			// The cut keeps up to max bytes of the text, and marks it.
			if d := set.Definitions[0].Description; !strings.HasSuffix(d, "[…]") || len(d) > c.max+len(" […]") || len(d) < c.max/2 {
				t.Errorf("description of %d bytes, want %d at most, and marked (cut from %d): %q", len(d), c.max, len(long), d)
			}
		})
	}
}

// What Options.Server gives a server's provider reaches it beside what the
// toolset itself needs: its OnEvent hears the server become ready while
// the toolset's OnStatus does too, and its Stderr gets the server's
// standard error.
func TestServerOptionsHearAndSeeTheServer(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Servers: []config.Server{{Name: "greeter", Command: self, Env: map[string]string{serverEnv: "1"}}}}
	var (
		mu     sync.Mutex
		events []mcptool.State
		status []mcptool.State
		stderr proctest.Buffer
	)
	ts, err := toolset.Start(t.Context(), cfg, &toolset.Options{
		OnStatus: func(s toolset.ServerStatus) { mu.Lock(); status = append(status, s.State); mu.Unlock() },
		Server: func(config.Server) *mcptool.Options {
			return &mcptool.Options{Stderr: &stderr, OnEvent: func(e mcptool.Event) { mu.Lock(); events = append(events, e.State); mu.Unlock() }}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	proctest.Eventually(t, "the server's stderr in Options.Stderr", func() bool { return strings.Contains(stderr.String(), "greeter: up") })
	mu.Lock()
	defer mu.Unlock()
	for who, got := range map[string][]mcptool.State{"Options.Server's OnEvent": events, "the toolset's OnStatus": status} {
		if !slices.Contains(got, mcptool.StateReady) {
			t.Errorf("%s heard %v, want %v among them", who, got, mcptool.StateReady)
		}
	}
}
