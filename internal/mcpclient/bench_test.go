package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// BenchmarkHandlerOverhead calls one tool on the same server through the
// mcpbridge handler and through a bare go-sdk ClientSession.CallTool, in
// process and over stdio, and prints for each row the allocations a call
// of both and the ratio of their times. The targets over stdio: at most 15
// allocations a call more than go-sdk (the handler checks the arguments
// and converts the result, which go-sdk does not) and no more time, a
// ratio of at most 1.00; in process, where both share one server and no
// connection of mcpbridge's own is used, at most 5% more time.
func BenchmarkHandlerOverhead(b *testing.B) {
	ctx := context.Background()
	args := json.RawMessage(`{"query": "milk"}`)
	params := &mcp.CallToolParams{Name: "search_notes", Arguments: map[string]any{"query": "milk"}}

	b.Run("inprocess", func(b *testing.B) {
		server := demo.New()
		bare := inMemorySession(b, server)
		p := mcpclient.FromServer("demo", server)
		if err := p.Connect(ctx); err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		compare(b, "in process", bare, params, p, args, target{ratio: 1.05})
	})

	b.Run("stdio", func(b *testing.B) {
		cmd := exec.Command(self(b))
		cmd.Env = append(os.Environ(), demo.ChildEnv+"=stdio", "GORACE=atexit_sleep_ms=0")
		bare, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer bare.Close()
		p := mcpclient.FromCommand(self(b), nil, mcpclient.WithEnv(demoEnv()))
		if err := p.Connect(ctx); err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		compare(b, "over stdio", bare, params, p, args, target{ratio: 1.00, allocs: 15})
	})
}

func inMemorySession(b *testing.B, server *mcp.Server) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// A target bounds the handler against go-sdk: the ratio of their times,
// and the allocations a call it may add (0: none set).
type target struct {
	ratio  float64
	allocs int
}

// compare measures both paths as sub-benchmarks (go-sdk, mcpbridge), then
// counts each one's allocations a call, then times them in turn
// (interleaved: rounds of a block of calls of each, each round starting
// with the other path), so that whatever else the machine does falls on
// both alike. It prints the allocations, each path's time a call, and the
// median of the rounds' ratios, against want.
func compare(b *testing.B, label string, bare *mcp.ClientSession, params *mcp.CallToolParams, p *mcpclient.Provider, args json.RawMessage, want target) {
	ctx := context.Background()
	h := p.Handler()
	paths := []struct {
		name string
		call func() error
	}{
		{"go-sdk", func() error { _, err := bare.CallTool(ctx, params); return err }},
		{"mcpbridge", func() error { _, err := h.Call(ctx, "search_notes", args); return err }},
	}
	for _, path := range paths {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := path.call(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	allocs := make([]float64, len(paths))
	for i, path := range paths {
		allocs[i] = testing.AllocsPerRun(200, func() {
			if err := path.call(); err != nil {
				b.Fatal(err)
			}
		})
	}
	// A block is short enough that the machine's load is alike for both
	// paths, and long enough that the garbage collection each path's
	// allocations cause falls mostly within its own blocks.
	const block = 10
	var ratios []float64
	total := make([]time.Duration, len(paths))
	b.Run("interleaved", func(b *testing.B) {
		took := make([]time.Duration, len(paths))
		for round := 0; b.Loop(); round++ {
			for k := range paths {
				i := (round + k) % len(paths)
				start := time.Now()
				for range block {
					if err := paths[i].call(); err != nil {
						b.Fatal(err)
					}
				}
				took[i] = time.Since(start)
				total[i] += took[i]
			}
			ratios = append(ratios, float64(took[1])/float64(took[0]))
		}
		slices.Sort(ratios)
		b.ReportMetric(0, "ns/op") // a round's, which says nothing
		b.ReportMetric(ratios[len(ratios)/2], "ratio")
	})
	if len(ratios) == 0 {
		return // left out by -bench
	}
	allocTarget := ""
	if want.allocs > 0 {
		allocTarget = fmt.Sprintf(" (target: at most %d more)", want.allocs)
	}
	calls := len(ratios) * block
	fmt.Printf("%s: allocations a call: go-sdk %.0f, mcpbridge %.0f: %+.0f%s\n",
		label, allocs[0], allocs[1], allocs[1]-allocs[0], allocTarget)
	fmt.Printf("%s: time a call, %d calls each in blocks of %d taken in turn: go-sdk %.0f µs, mcpbridge %.0f µs: "+
		"ratio %.3f, the median of the rounds' (target: at most %.2f)\n",
		label, calls, block, float64(total[0])/float64(calls)/1e3, float64(total[1])/float64(calls)/1e3, ratios[len(ratios)/2], want.ratio)
}

// BenchmarkTelemetryOverhead calls one tool in process through the handler
// of three providers: with no-op providers for both traces and metrics (the
// instrumentation skipped: the untraced path), with the default global
// providers and no SDK installed (tracing off), and with the SDK's
// providers, spans batched to an exporter that drops them and metrics
// aggregated (tracing on). The calls are interleaved, one of each in turn,
// so that whatever else the machine does falls on every path alike, and
// the garbage collector runs between rounds rather than within a call
// (each path's allocations are printed apart). It prints each path's
// median time per call and its ratio to the untraced path (the target for
// tracing off: at most 1.02), and the spread of the untraced path's calls
// (the middle half, around its median), which says how much one call's
// time varies on this machine.
func BenchmarkTelemetryOverhead(b *testing.B) {
	ctx := context.Background()
	args := json.RawMessage(`{"query": "milk"}`)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(ctx)
	defer mp.Shutdown(ctx)
	var calls []func()
	for _, opts := range [][]mcpclient.Option{
		{mcpclient.WithTracerProvider(tracenoop.NewTracerProvider()), mcpclient.WithMeterProvider(metricnoop.NewMeterProvider())},
		nil,
		{mcpclient.WithTracerProvider(tp), mcpclient.WithMeterProvider(mp)},
	} {
		p := mcpclient.FromServer("demo", demo.New(), opts...)
		if err := p.Connect(ctx); err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		h := p.Handler()
		calls = append(calls, func() {
			if _, err := h.Call(ctx, "search_notes", args); err != nil {
				b.Fatal(err)
			}
		})
	}
	allocs := make([]float64, len(calls))
	for i, call := range calls {
		allocs[i] = testing.AllocsPerRun(100, call)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	took := make([][]time.Duration, len(calls))
	for round := 0; b.Loop(); round++ {
		if round%50 == 0 {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
		}
		// Each round starts with another path, so that none always
		// follows the same one.
		for k := range calls {
			i := (round + k) % len(calls)
			start := time.Now()
			calls[i]()
			took[i] = append(took[i], time.Since(start))
		}
	}
	median := make([]float64, len(calls))
	for i, t := range took {
		slices.Sort(t)
		median[i] = float64(t[len(t)/2])
	}
	untraced := took[0]
	spread := float64(untraced[len(untraced)*3/4]-untraced[len(untraced)/4]) / median[0]
	fmt.Printf("in process, median of %d calls each: untraced %.0f ns/op (%.0f allocs); tracing off %.0f ns/op (%.0f allocs), ratio %.3f (target <= 1.02); "+
		"tracing on (SDK, batched) %.0f ns/op (%.0f allocs), ratio %.3f; spread of the untraced calls (middle half) %.1f%%\n",
		len(untraced), median[0], allocs[0], median[1], allocs[1], median[1]/median[0], median[2], allocs[2], median[2]/median[0], 100*spread)
}
