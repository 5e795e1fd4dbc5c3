//go:build unix

package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkCluster prints what a call costs through one gateway and
// through three replicas behind HAProxy (deploy/haproxy.cfg), each with
// and without the shared store: calls a second and the latency's median
// and 99th percentile, of calls of 2026-07-28 by 8 clients at once, and
// the store's cost per call (the difference of the means). Then the
// figures that decided the shipped config: a client's rate limit through
// the three replicas, and the 2025-11-25 requests a replica that does not
// know their session answers 404 when HAProxy balances them without
// routing a session home. Run it with make bench (-benchtime 1x: each
// setup runs its own count of calls).
func BenchmarkCluster(b *testing.B) {
	const calls, workers = 3000, 8
	type figures struct {
		perSecond, p50, p99, mean float64 // ms
	}
	measure := func(url string) figures {
		work(url, 300, workers) // warm the connections
		lat := work(url, calls, workers)
		var sum time.Duration
		for _, d := range lat.each {
			sum += d
		}
		slices.Sort(lat.each)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		return figures{float64(len(lat.each)) / lat.wall.Seconds(), ms(lat.each[len(lat.each)/2]), ms(lat.each[len(lat.each)*99/100]), ms(sum) / float64(len(lat.each))}
	}
	rows := []struct {
		name     string
		replicas int
		store    bool
		direct   bool
	}{
		{"one gateway", 1, false, true},
		{"one gateway, store", 1, true, true},
		{"3 replicas behind HAProxy", 3, false, false},
		{"3 replicas behind HAProxy, store", 3, true, false},
	}
	results := map[string]figures{}
	fmt.Printf("\ncalls of 2026-07-28 through the gateway, %d clients at once, %d calls (make bench; 2 cores shared)\n", workers, calls)
	fmt.Printf("%-36s %10s %9s %9s\n", "", "calls/s", "p50 ms", "p99 ms")
	for _, r := range rows {
		c := startCluster(b, r.replicas, !r.store, "")
		url := c.url
		if r.direct {
			url = "http://" + c.replicas[0].addr + "/mcp"
		}
		f := measure(url)
		results[r.name] = f
		fmt.Printf("%-36s %10.0f %9.2f %9.2f\n", r.name, f.perSecond, f.p50, f.p99)
		c.stop()
	}
	cost := func(with, without string) string {
		return fmt.Sprintf("%+.2f ms at the median, %+.2f ms on average", results[with].p50-results[without].p50, results[with].mean-results[without].mean)
	}
	fmt.Printf("the store's cost per call (3 operations: the rate, the call's lease taken and given back): %s through one gateway; %s through three replicas\n",
		cost("one gateway, store", "one gateway"), cost("3 replicas behind HAProxy, store", "3 replicas behind HAProxy"))
	b.ReportMetric(results["3 replicas behind HAProxy, store"].perSecond, "calls/s")

	// A rate limit of 50 a second (bursts of 5) across the three
	// replicas, the client calling as fast as it can for 3 seconds.
	c := startCluster(b, 3, false, "")
	taken, wall := rateRun(c.url, 3*time.Second, workers)
	fmt.Printf("a rate limit of 50 calls a second, bursts of 5, through 3 replicas with the store: %.1f taken a second (%+.1f%%)\n",
		float64(taken-5)/wall.Seconds(), (float64(taken-5)/wall.Seconds()/50-1)*100)

	// 2025-11-25 sessions, routed home by HAProxy or not.
	for _, home := range []bool{true, false} {
		cfg := ""
		if !home {
			cfg = withoutStickiness(b)
		}
		h := startHAProxyOnly(b, c, cfg)
		missing, sent := sessionRun(h, 10, 10)
		how := "routed home by Mcp-Session-Id"
		if !home {
			how = "round robin alone"
		}
		fmt.Printf("2025-11-25 sessions through 3 replicas, %s: %d of %d requests answered 404 (session unknown)\n", how, missing, sent)
	}
	c.stop()
}

// latencies are the times of each call of a run, and the run's.
type latencies struct {
	each []time.Duration
	wall time.Duration
}

// work makes n calls of echo through url from workers clients at once.
func work(url string, n, workers int) latencies {
	var mu sync.Mutex
	var lat latencies
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				t := time.Now()
				a := call(context.Background(), url, "tok-bench", fmt.Sprint("bench-", i), "up_echo", map[string]any{"text": "x"})
				d := time.Since(t)
				if !a.ok() {
					panic(fmt.Sprintf("a call of the benchmark: %+v", a))
				}
				mu.Lock()
				lat.each = append(lat.each, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	lat.wall = time.Since(start)
	return lat
}

// rateRun calls through url as the client "rated" (50 a second, bursts
// of 5) for d, and returns the calls taken.
func rateRun(url string, d time.Duration, workers int) (int, time.Duration) {
	var mu sync.Mutex
	taken := 0
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for time.Since(start) < d {
				if a := call(context.Background(), url, "tok-rated", "rated", "up_echo", map[string]any{"text": "x"}); a.ok() {
					mu.Lock()
					taken++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return taken, time.Since(start)
}

// withoutStickiness is deploy/haproxy.cfg without its stick lines, in a
// file of the benchmark's.
func withoutStickiness(b *testing.B) string {
	data, err := os.ReadFile("../../deploy/haproxy.cfg")
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "stick") {
			out = append(out, line)
		}
	}
	path := filepath.Join(b.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// startHAProxyOnly starts another HAProxy in front of c's replicas, with
// the config cfg, and returns its /mcp.
func startHAProxyOnly(b *testing.B, c *cluster, cfg string) string {
	h := &cluster{t: b, replicas: c.replicas}
	h.startHAProxy(cfg)
	return h.url
}

// sessionRun opens n 2025-11-25 sessions through url, sends each k
// requests (tools/list) and returns how many were answered 404.
func sessionRun(url string, n, k int) (missing, sent int) {
	post := func(session, body string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer tok-bench")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		return http.DefaultClient.Do(req)
	}
	for range n {
		resp, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		session := resp.Header.Get("Mcp-Session-Id")
		for i := range k {
			resp, err := post(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+2))
			if err != nil {
				panic(err)
			}
			resp.Body.Close()
			sent++
			if resp.StatusCode == http.StatusNotFound {
				missing++
			}
		}
	}
	return missing, sent
}
