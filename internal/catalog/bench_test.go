package catalog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// BenchmarkStart starts one server, ten at once with Start, and ten one
// after the other, for two fleets, and prints the times and the ratio of ten
// at once to one (the target: at most 1.5):
//
//   - stdio demo servers. Their start is CPU work (a Go process starting, the
//     handshake, the listing), so ten cannot take less than ten starts'
//     CPU spread over the cores; the line prints that floor too.
//   - HTTP demo servers with 20 ms of latency on every request, as remote
//     servers have: their start is waiting, which Start overlaps.
func BenchmarkStart(b *testing.B) {
	var stdio, remote []config.Server
	for i := range 10 {
		stdio = append(stdio, stdioDemo(b, fmt.Sprintf("demo%d", i)))
		srv := httptest.NewServer(delayed(20*time.Millisecond, demo.HTTPHandler()))
		b.Cleanup(srv.Close)
		remote = append(remote, config.Server{Name: fmt.Sprintf("remote%d", i), URL: srv.URL})
	}
	fleet(b, "stdio", stdio)
	fleet(b, "http+20ms", remote)
}

func delayed(d time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			time.Sleep(d) // the network's round trip, not synchronisation
		}
		h.ServeHTTP(w, r)
	})
}

func fleet(b *testing.B, label string, servers []config.Server) {
	ctx := context.Background()
	ten := &config.Config{Servers: servers}
	one := &config.Config{Servers: servers[:1]}
	startClose := func(b *testing.B, cfg *config.Config) {
		ts, err := catalog.Start(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := ts.Close(); err != nil {
			b.Fatal(err)
		}
	}
	paths := []struct {
		name string
		run  func(b *testing.B)
	}{
		{"one", func(b *testing.B) { startClose(b, one) }},
		{"ten_parallel", func(b *testing.B) { startClose(b, ten) }},
		{"ten_sequential", func(b *testing.B) {
			for _, s := range ten.Servers {
				p := mcptool.FromCommand(mcptool.Command{Path: s.Command, Args: s.Args, Env: s.Env}, &mcptool.Options{Name: s.Name})
				if err := p.Connect(ctx); err != nil {
					b.Fatal(err)
				}
				defer p.Close()
			}
		}},
	}
	best := make([]time.Duration, len(paths))
	for range 2 {
		for i, path := range paths {
			b.Run(label+"/"+path.name, func(b *testing.B) {
				for b.Loop() {
					path.run(b)
				}
				d := b.Elapsed() / time.Duration(b.N)
				if best[i] == 0 || d < best[i] {
					best[i] = d
				}
			})
		}
	}
	ms := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	fmt.Printf("%-9s start and close: one server %v, ten at once %v, ten one after the other %v; ten at once / one = %.2f (target <= 1.5",
		label, ms(best[0]), ms(best[1]), ms(best[2]), float64(best[1])/float64(best[0]))
	if label == "stdio" {
		fmt.Printf("; CPU floor on %d cores: %.2f", runtime.NumCPU(), float64(len(servers))/float64(runtime.NumCPU()))
	}
	fmt.Println(")")
}
