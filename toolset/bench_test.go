package toolset_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset"
)

// BenchmarkStart starts one stdio demo server, ten at once with Start, and
// ten one after the other, and prints the three times and the ratio of ten
// at once to one (the target: at most 1.5, on a machine with a core or two
// to spare).
func BenchmarkStart(b *testing.B) {
	ctx := context.Background()
	ten := &toolset.Config{}
	for i := range 10 {
		ten.Servers = append(ten.Servers, stdioDemo(b, fmt.Sprintf("demo%d", i)))
	}
	one := &toolset.Config{Servers: ten.Servers[:1]}
	startClose := func(b *testing.B, cfg *toolset.Config) {
		ts, err := toolset.Start(ctx, cfg)
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
				p := s.Provider()
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
			b.Run(path.name, func(b *testing.B) {
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
	fmt.Printf("start and close: one server %v, ten at once %v, ten one after the other %v; ten at once / one = %.2f (target <= 1.5)\n",
		best[0].Round(time.Millisecond), best[1].Round(time.Millisecond), best[2].Round(time.Millisecond), float64(best[1])/float64(best[0]))
}
