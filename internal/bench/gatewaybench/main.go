// Command gatewaybench measures what the gateway costs: tool calls made by
// concurrent clients straight to an MCP server, and the same calls through
// a gateway in front of it, in turns, all on loopback in this process, for
// results of 256 bytes, 16 KiB and 1 MiB; it prints the latency (p50, p99)
// and throughput of each way and their ratios, against the targets: p50
// at most 1.2x direct, throughput at least 0.9x.
//
//	go run ./internal/bench/gatewaybench                          # 64 clients, 6400 calls a size each way
//	go run ./internal/bench/gatewaybench -clients 16 -payloads 8192
//
// The server is a go-sdk server with one tool that echoes its argument,
// served statelessly over streamable HTTP (protocol 2026-07-28), and the
// clients are go-sdk clients of the same protocol; the gateway serves them
// as `mcpbridge serve --http` does, over one connection to the server that
// all its clients share. A size's calls carry at most 512 MiB each way
// (fewer calls of a large result). The run is bounded by its call count
// and by -timeout, and touches nothing but loopback.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
)

func main() {
	clients := flag.Int("clients", 64, "concurrent clients")
	calls := flag.Int("calls", 6400, "calls of each size, each way, at most")
	payloads := flag.String("payloads", "256,16384,1048576", "the sizes of text the calls echo, in bytes, comma-separated")
	rounds := flag.Int("rounds", 4, "turns of direct and through the gateway, whose calls are measured together")
	timeout := flag.Duration("timeout", 10*time.Minute, "bound on the whole run")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of each round of calls through the gateway to `FILE`.SIZE.ROUND (go tool pprof takes several at once)")
	flag.Parse()
	profile = *cpuprofile
	var sizes []int
	for _, f := range strings.Split(*payloads, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			log.Fatalf("-payloads: %q is no size in bytes", f)
		}
		sizes = append(sizes, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *clients, *calls, *rounds, sizes); err != nil {
		log.Fatal(err)
	}
}

// A measure is one way's runs: each call's latency, sorted, and the wall
// time they took.
type measure struct {
	latencies []time.Duration
	wall      time.Duration
}

// add takes in the run m.
func (all *measure) add(m measure) {
	all.latencies = append(all.latencies, m.latencies...)
	slices.Sort(all.latencies)
	all.wall += m.wall
}

func (m measure) count() int { return len(m.latencies) }

func (m measure) quantile(q float64) time.Duration {
	return m.latencies[int(q*float64(len(m.latencies)-1))]
}

func (m measure) throughput() float64 { return float64(len(m.latencies)) / m.wall.Seconds() }

// profile is the -cpuprofile file, or "".
var profile string

func run(ctx context.Context, clients, calls, rounds int, sizes []int) error {
	echo := echoServer()
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return echo },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	defer upstream.Close()

	// The bench's clients present no token, and so share one name, and
	// the bounds of one client, where a deployment's are each their own;
	// and 64 calls of 1 MiB at once pass the default bounds of bytes held
	// in all, which the bench measures the cost of, not the refusal.
	// What the gateway's goroutines run carries the label side=gateway in
	// a -cpuprofile (go tool pprof -tagfocus side=gateway): its share of
	// the CPU, the clients' and the server's aside.
	gctx := pprof.WithLabels(ctx, pprof.Labels("side", "gateway"))
	pprof.SetGoroutineLabels(gctx)
	g, err := gateway.Start(gctx, &config.Config{Servers: []config.Server{{Name: "bench", URL: upstream.URL, Required: true}}},
		&gateway.Options{Limits: gateway.Limits{CallsPerClient: -1, RequestBytes: -1, RequestBytesPerClient: -1,
			ResultBytes: -1, ResultBytesPerClient: -1, ServerCalls: -1}})
	if err != nil {
		return err
	}
	defer g.Close()
	pprof.SetGoroutineLabels(ctx)
	h := g.Handler()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pprof.Do(r.Context(), pprof.Labels("side", "gateway"), func(context.Context) { h.ServeHTTP(w, r) })
	}))
	defer front.Close()

	w := os.Stdout
	fmt.Fprintf(w, "%d clients, protocol 2026-07-28 over streamable HTTP on loopback; %d rounds, each way in turn\n", clients, rounds)
	met := true
	for _, size := range sizes {
		n := min(calls, max(clients, (512<<20)/max(size, 1)))
		text := strings.Repeat("x", size)
		// A short warm-up each way, so that connections and caches are
		// made before anything is measured.
		if _, err := load(ctx, upstream.URL, "echo", clients, clients, text); err != nil {
			return fmt.Errorf("direct: %w", err)
		}
		if _, err := load(ctx, front.URL+"/mcp", "bench_echo", clients, clients, text); err != nil {
			return fmt.Errorf("through the gateway: %w", err)
		}
		// The rounds take turns, each starting with the other way, so that
		// whatever else the machine does falls on both alike.
		var direct, through measure
		for round := range rounds {
			for k := range 2 {
				if (round+k)%2 == 0 {
					d, err := load(ctx, upstream.URL, "echo", clients, n/rounds, text)
					if err != nil {
						return fmt.Errorf("direct: %w", err)
					}
					direct.add(d)
					continue
				}
				th, err := loadProfiled(ctx, fmt.Sprintf("%s.%d.%d", profile, size, round), front.URL+"/mcp", "bench_echo", clients, n/rounds, text)
				if err != nil {
					return fmt.Errorf("through the gateway: %w", err)
				}
				through.add(th)
			}
		}
		fmt.Fprintf(w, "\n%d calls each way, %d-byte text\n", direct.count(), size)
		fmt.Fprintf(w, "%-16s %10s %10s %12s\n", "", "p50", "p99", "calls/s")
		for _, r := range []struct {
			name string
			m    measure
		}{{"direct", direct}, {"through gateway", through}} {
			fmt.Fprintf(w, "%-16s %10v %10v %12.0f\n", r.name, r.m.quantile(0.5).Round(time.Microsecond), r.m.quantile(0.99).Round(time.Microsecond), r.m.throughput())
		}
		p50 := float64(through.quantile(0.5)) / float64(direct.quantile(0.5))
		p99 := float64(through.quantile(0.99)) / float64(direct.quantile(0.99))
		tput := through.throughput() / direct.throughput()
		fmt.Fprintf(w, "%-16s %9.2fx %9.2fx %11.2fx\n", "gateway/direct", p50, p99, tput)
		fmt.Fprintf(w, "targets: p50 at most 1.2x direct (%s), throughput at least 0.9x (%s)\n", verdict(p50 <= 1.2), verdict(tput >= 0.9))
		met = met && p50 <= 1.2 && tput >= 0.9
	}
	fmt.Fprintf(w, "\nevery size: %s\n", verdict(met))
	return nil
}

// loadProfiled is load, under a CPU profile written to file if -cpuprofile
// is given.
func loadProfiled(ctx context.Context, file, url, tool string, clients, calls int, text string) (measure, error) {
	if profile == "" {
		return load(ctx, url, tool, clients, calls, text)
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return measure{}, err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return measure{}, err
	}
	defer pprof.StopCPUProfile()
	return load(ctx, url, tool, clients, calls, text)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

// load makes calls calls of tool at url, spread over clients concurrent
// clients, each its own go-sdk client session, and measures them.
func load(ctx context.Context, url, tool string, clients, calls int, text string) (measure, error) {
	// Each client keeps its connection, as clients in processes of their
	// own do: Go's default transport keeps two idle a host, so that 64
	// clients in one process would open connections all the time, which
	// costs both ways alike and hides what the gateway costs.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = clients
	defer t.CloseIdleConnections()
	hc := &http.Client{Transport: t}
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "gatewaybench", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			return measure{}, err
		}
		defer cs.Close()
		sessions[i] = cs
	}
	lat := make([][]time.Duration, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	for i, cs := range sessions {
		n := calls / clients
		if i < calls%clients {
			n++
		}
		wg.Go(func() {
			args := map[string]any{"text": text}
			for range n {
				t := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err == nil && res.IsError {
					err = fmt.Errorf("%s: the tool failed", tool)
				}
				if err != nil {
					errs[i] = err
					return
				}
				lat[i] = append(lat[i], time.Since(t))
			}
		})
	}
	wg.Wait()
	m := measure{wall: time.Since(start)}
	for i := range lat {
		if errs[i] != nil {
			return m, errs[i]
		}
		m.latencies = append(m.latencies, lat[i]...)
	}
	slices.Sort(m.latencies)
	return m, nil
}

// echoServer is the server measured: one tool that echoes its text.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return s
}
