// Command callbench measures one tool call, side by side, through every
// client of the same server in the same run: the floor (JSON-RPC written by
// hand), a bare go-sdk client, mcpbridge's handler (Provider.Handler, what
// a model's calls go through) and its CallTool (the host's own call,
// returning the result as the server sent it), all through the public
// API, and the TypeScript SDK's client, in a Node process of its own.
//
//	go run ./internal/bench/callbench                # stdio and HTTP, 3 rounds
//	go run ./internal/bench/callbench -transport stdio -calls 2000
//
// The server is an echo server written by hand (echo.go), the same for
// every client, over stdio (each client starts its own) and over
// streamable HTTP on loopback (one for all). Each round makes, through
// each client, -calls calls one after another, then -calls calls by
// -callers concurrent callers on the client's one session, in blocks of a
// tenth; the clients take turns block by block, each block starting with
// another, so that whatever else the machine does falls on all alike. It prints, for each client, the time a
// call and the calls a second under load (the least and the most over the
// rounds), their ratios to the TypeScript SDK's and the floor's in the
// same round, and, for the Go clients, the bytes and allocations a call,
// which the machine's load does not change; then those bytes and
// allocations for texts of -sweep sizes, which should grow with the
// message, not with a fixed buffer.
//
// The TypeScript SDK is read from -npm (make deps installs it), and run
// with the node found there, or else on PATH.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

func main() {
	if kind := os.Getenv(serverEnv); kind != "" {
		if err := serve(kind); err != nil {
			log.Fatal(err)
		}
		return
	}
	var o options
	flag.IntVar(&o.calls, "calls", 5000, "calls each way, each round")
	flag.IntVar(&o.callers, "callers", 16, "concurrent callers on one session")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds")
	flag.IntVar(&o.size, "size", 64, "bytes of the text each call echoes")
	sweep := flag.String("sweep", "64,4096,65536,1048576", "text sizes whose bytes and allocations a call are counted, comma-separated")
	transports := flag.String("transport", "stdio,http", "transports, comma-separated: stdio, http (answers as event streams), http-json (as JSON bodies)")
	flag.StringVar(&o.npm, "npm", defaultNPM(), "the npm directory make deps installs into")
	timeout := flag.Duration("timeout", 20*time.Minute, "bound on the whole run")
	flag.Parse()
	o.calls = max(o.calls/blocks, 1) * blocks // made in blocks
	for _, s := range strings.Split(*sweep, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			log.Fatalf("-sweep: %q is not a size", s)
		}
		o.sweep = append(o.sweep, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, o, strings.Split(*transports, ",")); err != nil {
		log.Fatal(err)
	}
}

type options struct {
	calls, callers, rounds, size int
	sweep                        []int
	npm                          string
}

func defaultNPM() string {
	if dir := os.Getenv("MCPBRIDGE_NPM_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(".cache", "npm")
}

func run(ctx context.Context, o options, transports []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sdkDir := filepath.Join(o.npm, "node_modules", "@modelcontextprotocol", "sdk")
	tsVersion, err := packageVersion(sdkDir)
	if err != nil {
		return fmt.Errorf("the TypeScript SDK is not in %s (make deps installs it): %w", o.npm, err)
	}
	node := filepath.Join(o.npm, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			return err
		}
	}
	nodeVersion, _ := exec.Command(node, "--version").Output()
	scriptDir, err := os.MkdirTemp("", "callbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scriptDir)
	fmt.Printf("one tool call, side by side: %d-byte text echoed; go %s (GOMAXPROCS %d), go-sdk %s, TypeScript SDK %s on node %s\n",
		o.size, runtime.Version()[2:], runtime.GOMAXPROCS(0), moduleVersion("github.com/modelcontextprotocol/go-sdk"), tsVersion, strings.TrimSpace(string(nodeVersion)))
	for _, t := range transports {
		s := server{stdio: t == "stdio", self: self}
		switch t {
		case "stdio":
		case "http", "http-json":
			url, stop, err := startHTTP(self, t)
			if err != nil {
				return err
			}
			defer stop()
			s.url = url
		default:
			return fmt.Errorf("-transport: %q is none of stdio, http, http-json", t)
		}
		s.answers = t
		if err := measure(ctx, o, s, node, sdkDir, scriptDir); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
	}
	return nil
}

// startHTTP starts the echo server over HTTP (kind http or http-json), and
// returns its URL.
func startHTTP(self, kind string) (string, func(), error) {
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), serverEnv+"="+kind)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { in.Close(); cmd.Wait() }
	var line [128]byte
	n, err := out.Read(line[:])
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("the HTTP echo server: %w", err)
	}
	return strings.TrimSpace(string(line[:n])), stop, nil
}

// A sample is what one client did in one round.
type sample struct {
	seq           time.Duration // o.calls calls one after another
	conc          time.Duration // o.calls calls by o.callers callers
	bytes, allocs float64       // a call, in seq; Go clients only
}

// blocks is how many blocks of calls a round's are made in, each way.
const blocks = 10

// measure runs the rounds on one transport and prints them.
func measure(ctx context.Context, o options, s server, node, sdkDir, scriptDir string) error {
	clients, err := allClients(ctx, o, s, node, sdkDir, scriptDir)
	defer func() {
		for _, c := range clients {
			c.close()
		}
	}()
	if err != nil {
		return err
	}

	// A warm-up: connections made, code compiled (Node's), caches filled.
	for _, c := range clients {
		if _, err := c.sequential(ctx, o.calls/10); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if _, err := c.concurrent(ctx, o.callers, o.calls/10); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	// A round's calls go in blocks, each client's taken in turn, so that
	// whatever else the machine does meanwhile falls on every client
	// alike: on a shared machine, one block of 5000 calls for each
	// client in turn made the ratios of a round swing by half.
	per := max(o.calls/blocks, 1)
	samples := make([][]sample, len(clients))
	for round := range o.rounds {
		sum := make([]sample, len(clients))
		for b := range blocks {
			for k := range clients {
				i := (round + b + k) % len(clients)
				smp, err := clients[i].sequential(ctx, per)
				if err != nil {
					return fmt.Errorf("%s: %w", clients[i].name, err)
				}
				sum[i].seq += smp.seq
				sum[i].bytes += smp.bytes / blocks
				sum[i].allocs += smp.allocs / blocks
			}
		}
		for b := range blocks {
			for k := range clients {
				i := (round + b + k) % len(clients)
				took, err := clients[i].concurrent(ctx, o.callers, per)
				if err != nil {
					return fmt.Errorf("%s: %w", clients[i].name, err)
				}
				sum[i].conc += took
			}
		}
		for i := range clients {
			samples[i] = append(samples[i], sum[i])
		}
	}
	transport := "streamable HTTP (answers as event streams, loopback)"
	if s.answers == "http-json" {
		transport = "streamable HTTP (answers as JSON bodies, loopback)"
	}
	if s.stdio {
		transport = "stdio"
	}
	fmt.Printf("\n%s: %d calls one after another, then %d by %d callers on one session, each round; %d rounds, least-most\n\n",
		transport, o.calls, o.calls, o.callers, o.rounds)
	report(os.Stdout, o, clients, samples)
	return sweep(ctx, o, s, clients)
}

// allClients makes every client of the server s, in the order of
// floorAt... The caller closes those made, an error or not.
func allClients(ctx context.Context, o options, s server, node, sdkDir, scriptDir string) (clients []*client, err error) {
	text := textOf(o.size)
	add := func(c *client, err error) error {
		if err == nil {
			clients = append(clients, c)
		}
		return err
	}
	if s.stdio {
		err = add(floorStdio(ctx, s, text))
	} else {
		err = add(floorHTTP(ctx, s, text, o.callers))
	}
	if err != nil {
		return clients, err
	}
	if err := add(tsClient(s, node, sdkDir, scriptDir, o.size)); err != nil {
		return clients, err
	}
	if err := add(goSDK(ctx, s, text, o.callers)); err != nil {
		return clients, err
	}
	handler, callTool, err := bridge(ctx, s, text)
	if err != nil {
		return clients, err
	}
	return append(clients, handler, callTool), nil
}

// The clients are made in this order (allClients).
const (
	floorAt = iota
	tsAt
	goSDKAt
	handlerAt
	callToolAt
)

func report(out io.Writer, o options, clients []*client, samples [][]sample) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "client\tper call\tvs TS\tvs floor\tcalls/s, "+strconv.Itoa(o.callers)+" callers\tvs TS\tbytes/call\tallocs/call\t")
	perCall := func(s sample) float64 { return float64(s.seq) / float64(o.calls) }
	perSec := func(s sample) float64 { return float64(o.calls) / s.conc.Seconds() }
	for i, c := range clients {
		var us, rTS, rFloor, cps, rLoad, by, al []float64
		for r, s := range samples[i] {
			us = append(us, perCall(s)/1e3)
			rTS = append(rTS, perCall(s)/perCall(samples[tsAt][r]))
			rFloor = append(rFloor, perCall(s)/perCall(samples[floorAt][r]))
			cps = append(cps, perSec(s))
			rLoad = append(rLoad, perSec(s)/perSec(samples[tsAt][r]))
			by = append(by, s.bytes)
			al = append(al, s.allocs)
		}
		mem := "-\t-\t"
		if c.ts == nil {
			mem = span(by, "%.0f") + "\t" + span(al, "%.0f") + "\t"
		}
		fmt.Fprintf(w, "%s\t%s µs\t%s\t%s\t%s\t%s\t%s\n", c.name, span(us, "%.1f"), span(rTS, "%.2f"), span(rFloor, "%.2f"),
			span(cps, "%.0f"), span(rLoad, "%.2f"), mem)
	}
	w.Flush()
	// The targets: per call at most the TypeScript SDK's (aim: twice the
	// floor), under load at least its calls a second, at most 16 KB and
	// go-sdk's allocations a call.
	fmt.Fprintln(out)
	// Over the run, a client's time a call is its calls' whole time over
	// their count: what a user making them would wait.
	whole := func(i int) float64 {
		var t time.Duration
		for _, s := range samples[i] {
			t += s.seq
		}
		return float64(t) / float64(o.calls*len(samples[i]))
	}
	for _, i := range []int{handlerAt, callToolAt} {
		var call, load []float64
		for r, s := range samples[i] {
			call = append(call, perCall(s)/perCall(samples[tsAt][r]))
			load = append(load, perSec(s)/perSec(samples[tsAt][r]))
		}
		m := samples[i][len(samples[i])-1]
		g := samples[goSDKAt][len(samples[goSDKAt])-1]
		run := whole(i) / whole(tsAt)
		fmt.Fprintf(out, "%s: per call <= TS: %s over the run (%.1f µs against %.1f, %.2f), round by round %s; calls/s under load >= TS: %s; <= 16 KB a call: %s; allocations <= go-sdk's (%.0f): %s\n",
			clients[i].name, verdict([]float64{run}, func(r float64) bool { return r <= 1 }), whole(i)/1e3, whole(tsAt)/1e3, run,
			verdict(call, func(r float64) bool { return r <= 1 }), verdict(load, func(r float64) bool { return r >= 1 }),
			verdict([]float64{m.bytes}, func(b float64) bool { return b <= 16<<10 }), g.allocs,
			verdict([]float64{m.allocs}, func(a float64) bool { return a <= g.allocs }))
	}
}

// span is the least and the most of xs, or one figure when they round
// alike.
func span(xs []float64, format string) string {
	lo, hi := fmt.Sprintf(format, slices.Min(xs)), fmt.Sprintf(format, slices.Max(xs))
	if lo == hi {
		return lo
	}
	return lo + "-" + hi
}

// verdict says whether every round met a target, none did, or some.
func verdict(xs []float64, met func(float64) bool) string {
	n := 0
	for _, x := range xs {
		if met(x) {
			n++
		}
	}
	switch n {
	case len(xs):
		return "met"
	case 0:
		return "missed"
	}
	return fmt.Sprintf("met in %d of %d rounds", n, len(xs))
}

// sweep counts the bytes and allocations a call of each Go client for
// texts of every size of o.sweep, on servers of their own.
func sweep(ctx context.Context, o options, s server, clients []*client) error {
	if len(o.sweep) == 0 {
		return nil
	}
	fmt.Printf("\nbytes and allocations a call by the size of the text (the answer is about 60 bytes more)\n\n")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "client\t")
	for _, size := range o.sweep {
		fmt.Fprintf(w, "%s\t", bytesOf(size))
	}
	fmt.Fprintln(w)
	rows := make([][]string, len(clients))
	for _, size := range o.sweep {
		text := textOf(size)
		var sized []*client
		var err error
		if s.stdio {
			sized, err = goClients(ctx, s, text, o.callers, floorStdio)
		} else {
			sized, err = goClients(ctx, s, text, o.callers, func(ctx context.Context, s server, text string) (*client, error) {
				return floorHTTP(ctx, s, text, o.callers)
			})
		}
		if err != nil {
			return err
		}
		n := max(10, min(200, (64<<20)/size))
		for i, c := range sized {
			c.sequential(ctx, 5)
			smp, err := c.sequential(ctx, n)
			if err != nil {
				return fmt.Errorf("%s, %d bytes: %w", c.name, size, err)
			}
			rows[i] = append(rows[i], fmt.Sprintf("%s, %.0f", bytesOf(int(smp.bytes)), smp.allocs))
		}
		for _, c := range sized {
			c.close()
		}
	}
	for i, c := range clients {
		if c.ts != nil || i >= len(rows) {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\t\n", c.name, strings.Join(rows[i], "\t"))
	}
	return w.Flush()
}

// goClients makes the Go clients, in measure's order, the TypeScript one
// left out (a nil in its place).
func goClients(ctx context.Context, s server, text string, callers int, floor func(context.Context, server, string) (*client, error)) ([]*client, error) {
	f, err := floor(ctx, s, text)
	if err != nil {
		return nil, err
	}
	g, err := goSDK(ctx, s, text, callers)
	if err != nil {
		return nil, err
	}
	h, ct, err := bridge(ctx, s, text)
	if err != nil {
		return nil, err
	}
	return []*client{f, {name: "-", ts: &tsDriver{}, close: func() error { return nil }}, g, h, ct}, nil
}

func bytesOf(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// textOf is the text of size bytes every client sends (tsclient.mjs makes
// the same).
func textOf(size int) string {
	const pattern = "abcdefghijklmnopqrstuvwxyz0123456789"
	return strings.Repeat(pattern, size/len(pattern)+1)[:size]
}

// sequential makes n calls one after another, counting the bytes and
// allocations of a Go client's.
func (c *client) sequential(ctx context.Context, n int) (sample, error) {
	if c.ts != nil {
		if c.ts.cmd == nil {
			return sample{}, nil // the sweep's stand-in
		}
		took, err := c.ts.run(ctx, fmt.Sprintf("seq %d", n))
		return sample{seq: took, bytes: -1, allocs: -1}, err
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range n {
		if err := c.call(ctx); err != nil {
			return sample{}, err
		}
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return sample{
		seq:    took,
		bytes:  float64(after.TotalAlloc-before.TotalAlloc) / float64(n),
		allocs: float64(after.Mallocs-before.Mallocs) / float64(n),
	}, nil
}

// concurrent makes n calls by callers concurrent callers.
func (c *client) concurrent(ctx context.Context, callers, n int) (time.Duration, error) {
	if c.ts != nil {
		return c.ts.run(ctx, fmt.Sprintf("conc %d %d", callers, n))
	}
	runtime.GC()
	errs := make([]error, callers)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range callers {
		wg.Go(func() {
			for range n/callers + btoi(i < n%callers) {
				if err := c.call(ctx); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), errors.Join(errs...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func packageVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var pkg struct{ Version string }
	err = json.Unmarshal(data, &pkg)
	return pkg.Version, err
}

func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "?"
}
