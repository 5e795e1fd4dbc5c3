package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sizes are result sizes on both sides of the buffers a result crosses:
// a bufio.Reader's 4 KiB, an event's line, a message of megabytes.
var sizes = []int{0, 4095, 4097, 8192, 64 << 10, 1 << 20}

// blobUpstream serves the tool blob, whose result is a text of the size
// it is asked for, statelessly (2026-07-28) over streamable HTTP, and
// counts the connections the gateway opens to it (if connects is not nil),
// by the initialize or server/discover each one starts with.
func blobUpstream(t *testing.T, connects *atomic.Int32) config.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blobs", Version: "1"}, nil)
	type in struct {
		Size int `json:"size"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "blob"}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Size)}}}, nil, nil
	})
	url := serveStateless(t, s, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m := r.Header.Get("Mcp-Method"); connects != nil && (m == "server/discover" || m == "initialize") {
				connects.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	return config.Server{Name: "blobs", URL: url, Required: true}
}

// TestResultsOfEverySizeCrossTheGateway calls a tool of an HTTP server
// through the gateway for results of every size, from a client of each
// protocol generation: each comes back whole, and the gateway keeps the
// one connection it made to the server (a call it failed to read was
// taken for a lost connection, and the ping that followed refused).
func TestResultsOfEverySizeCrossTheGateway(t *testing.T) {
	var connects atomic.Int32
	g := start(t, []config.Server{blobUpstream(t, &connects)}, nil)
	url, _ := serve(t, g)
	for _, version := range versions {
		cs := connect(t, url, version, nil, nil)
		for _, size := range sizes {
			t.Run(fmt.Sprintf("%s/%d", version, size), func(t *testing.T) {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "blobs_blob", Arguments: map[string]any{"size": size}})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError {
					t.Fatalf("the call failed: %s", text(t, res))
				}
				if got := len(text(t, res)); got != size {
					t.Fatalf("got %d bytes of text, want %d", got, size)
				}
			})
		}
	}
	if n := connects.Load(); n != 1 {
		t.Errorf("the gateway connected to the server %d times, want once", n)
	}
}

// TestALostCallLeavesAHealthyServerUp cuts one call's exchange with a
// server of 2026-07-28: the gateway asks the server whether the
// connection still holds (a ping, with the _meta that generation requires
// of every request), keeps it, and the calls that follow succeed.
func TestALostCallLeavesAHealthyServerUp(t *testing.T) {
	var connects, bare atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	for _, name := range []string{"cut", "fine"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
	}
	url := serveStateless(t, s, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			switch m := r.Header.Get("Mcp-Method"); {
			case m == "server/discover" || m == "initialize":
				connects.Add(1)
			case !strings.HasPrefix(m, "notifications/") && !bytes.Contains(body, []byte(mcp.MetaKeyProtocolVersion)):
				bare.Add(1)
			}
			if r.Header.Get("Mcp-Name") == "cut" {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	g := start(t, []config.Server{{Name: "up", URL: url, Required: true}}, nil)
	gw, _ := serve(t, g)
	for _, version := range versions {
		cs := connect(t, gw, version, nil, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up_cut"})
		if err == nil && !res.IsError {
			t.Fatalf("%s: a call whose exchange was cut succeeded", version)
		}
		res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up_fine"})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		if res.IsError {
			t.Fatalf("%s: the call after a lost one failed: %s", version, text(t, res))
		}
	}
	if n := connects.Load(); n != 1 {
		t.Errorf("the gateway connected to the server %d times, want once", n)
	}
	if n := bare.Load(); n != 0 {
		t.Errorf("%d requests reached a 2026-07-28 server without the protocol's _meta", n)
	}
}
