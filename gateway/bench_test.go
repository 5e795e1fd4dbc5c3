package gateway_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/toolset"
)

// BenchmarkCall makes one tools/call at a time of a tool that echoes 256
// bytes, from a go-sdk client of protocol 2026-07-28, to a server of the
// same protocol over streamable HTTP on loopback: straight to it, through
// the gateway's fast path, and through go-sdk's server in the gateway (a
// progress token in _meta sends the call there). Its bytes and allocations
// a call, which other processes on the machine do not change, say what the
// gateway costs; cmd/gatewaybench measures latency and throughput under
// load.
func BenchmarkCall(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	upstream := serveStateless(b, s, nil)
	front, _ := serve(b, start(b, []toolset.ServerConfig{{Name: "bench", URL: upstream, Required: true}}))

	text := string(make([]byte, 256))
	for _, way := range []struct {
		name, url, tool string
		meta            mcp.Meta
	}{
		{"direct", upstream, "echo", nil},
		{"gateway", front, "bench_echo", nil},
		{"gateway-go-sdk", front, "bench_echo", mcp.Meta{"progressToken": "p"}},
	} {
		b.Run(way.name, func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: way.url}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: way.tool, Arguments: map[string]any{"text": text}, Meta: way.meta}
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(b.Context(), params); err != nil || res.IsError {
					b.Fatalf("%v, %v", res, err)
				}
			}
		})
	}
}
