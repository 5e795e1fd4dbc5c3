package gateway_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// BenchmarkCall makes one tools/call at a time of a tool that echoes 256
// bytes, 16 KiB and 1 MiB, from a go-sdk client of protocol 2026-07-28, to a server of the
// same protocol over streamable HTTP on loopback: straight to it, through
// the gateway's fast path, and through go-sdk's server in the gateway (a
// progress token in _meta sends the call there). Its bytes and allocations
// a call, which other processes on the machine do not change, say what the
// gateway costs; internal/bench/gatewaybench measures latency and throughput under
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
	front, _ := serve(b, start(b, []config.Server{{Name: "bench", URL: upstream, Required: true}}, nil))

	for _, size := range []int{256, 16 << 10, 1 << 20} {
		text := strings.Repeat("x", size)
		b.Run(fmt.Sprint(size), func(b *testing.B) { benchmarkCall(b, upstream, front, text) })
	}
}

func benchmarkCall(b *testing.B, upstream, front, text string) {
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

// BenchmarkAVictimBesideAClientThatDoesNotRead times a client's call whose
// server reports its progress ten times (each report then a ping, so that
// the call waits on the gateway's passing them on), while the server logs
// 50 messages of 4 KiB outside any call for every call, which a client
// that reads passes on: through a gateway with no other client (quiet),
// and through another beside a client that opened its session's event
// stream, asked for the log, and never reads it (attacked), its queue
// large enough to hold what the run sends it (run it with -benchtime
// 100x). The two gateways' calls alternate, so that the machine's load
// weighs on both alike. It reports the time of a call of each and their
// ratio, attacked/quiet: a client that does not read must not slow
// another's calls (target: within 2x). The ratio is printed, never
// asserted: wall time depends on the machine. Before the gateway wrote
// through lanes (lanes.go), the attacked calls never ended.
func BenchmarkAVictimBesideAClientThatDoesNotRead(b *testing.B) {
	quiet, attacked := victimOf(b, false), victimOf(b, true)
	for range 10 { // connections made, caches filled
		quiet()
		attacked()
	}
	var q, a time.Duration
	for b.Loop() {
		q += quiet()
		a += attacked()
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64((q / n).Nanoseconds()), "quiet-ns/call")
	b.ReportMetric(float64((a / n).Nanoseconds()), "attacked-ns/call")
	b.ReportMetric(float64(a)/float64(q), "attacked/quiet")
}

// victimOf starts a gateway in front of a chatty server, with a client that
// reads the server's log, and with attacked one that never reads it, and
// returns a function that makes the server log 50 messages and times a
// call of its steps by another client.
func victimOf(b *testing.B, attacked bool) func() time.Duration {
	chatty := newChatty(b)
	g := start(b, []config.Server{{Name: "chatty", URL: chatty.url, Required: true}}, &gateway.Options{
		Limits: gateway.Limits{ClientQueueBytes: 64 << 20},
	})
	url, _ := serve(b, g)
	observer, err := mcp.NewClient(&mcp.Implementation{Name: "observer", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {},
	}).Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { observer.Close() })
	if err := observer.SetLoggingLevel(b.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		b.Fatal(err)
	}
	if attacked {
		hostile.StallSession(b, url, "", "debug")
	}
	victim, err := mcp.NewClient(&mcp.Implementation{Name: "victim", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {},
	}).Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { victim.Close() })
	params := &mcp.CallToolParams{Name: "chatty_steps", Arguments: map[string]any{}}
	params.SetProgressToken("victim")
	return func() time.Duration {
		chatty.flood(b, 50, 4<<10)
		begin := time.Now()
		if res, err := victim.CallTool(b.Context(), params); err != nil || res.IsError {
			b.Fatalf("%v, %v", res, err)
		}
		return time.Since(begin)
	}
}
