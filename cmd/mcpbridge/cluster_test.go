//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/internal/testing/redistest"
)

// A cluster is what the shipped configs run, on loopback: Redis, replicas
// of mcpbridge serve sharing it (--store), and HAProxy in front with
// deploy/haproxy.cfg. The replicas front one upstream of the test's,
// which each reaches at a path of its own, so that the upstream knows which
// replica a call came through.
type cluster struct {
	t        testing.TB
	dir      string
	redis    *redistest.Server
	up       *clusterUpstream
	replicas []*replica
	url      string // HAProxy's /mcp
	haproxy  *exec.Cmd
	hlog     *proctest.Buffer // HAProxy's log
	hdone    chan struct{}
}

// A replica is one mcpbridge serve of a cluster.
type replica struct {
	name  string // replica1...
	cmd   *exec.Cmd
	addr  string // host:port of its endpoint
	audit string // its audit log's path
	exit  chan struct{}
}

// clusterTokens are the clients of a cluster: alice and bench without a
// limit of their own, limited and limited2 with a rate limit of 0.001 a
// second in bursts of 30 (what a test spends is the burst), rated with 50
// a second in bursts of 5 (the benchmark's).
const clusterTokens = "alice tok-alice\nlimited tok-limited\nlimited2 tok-limited2\nbench tok-bench\nrated tok-rated\n"

// startCluster starts Redis (unless noStore), n replicas and HAProxy in
// front, once each is ready; all are stopped at the test's end.
func startCluster(t testing.TB, n int, noStore bool, haproxyCfg string) *cluster {
	t.Helper()
	for _, tool := range []string{"haproxy", "redis-server"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: make deps installs it (apt-get install %s): %v", tool, tool, err)
		}
	}
	c := &cluster{t: t, dir: t.TempDir(), up: newClusterUpstream(t)}
	args := []string{}
	if !noStore {
		c.redis = redistest.Start(t)
		args = append(args, "--store", c.redis.URL)
	} else {
		key := filepath.Join(c.dir, "task.key")
		os.WriteFile(key, []byte(strings.Repeat("k", 32)+"\n"), 0o600)
		args = append(args, "--task-key-file", key)
	}
	tokens := filepath.Join(c.dir, "tokens")
	if err := os.WriteFile(tokens, []byte(clusterTokens), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("replica%d", i+1)
		config := filepath.Join(c.dir, name+".json")
		cfg := fmt.Sprintf(`{"mcpServers": {"up": {"url": %q, "required": true}},
 "gateway": {"clients": {"limited": {"rateLimit": {"rate": 0.001, "burst": 30}}, "limited2": {"rateLimit": {"rate": 0.001, "burst": 30}},
   "rated": {"rateLimit": {"rate": 50, "burst": 5}}},
  "limits": {"storeTimeout": "250ms"}}}`, c.up.url+"/"+name)
		if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		r := &replica{name: name, audit: filepath.Join(c.dir, name+".audit")}
		r.start(t, append(args, "--config", config, "--token-file", tokens, "--audit", r.audit, "--log", "json"))
		c.replicas = append(c.replicas, r)
	}
	c.startHAProxy(haproxyCfg)
	return c
}

// start runs the replica's serve with args and waits for its endpoint.
func (r *replica) start(t testing.TB, args []string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MCPBRIDGE_CONFIG_DIR="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.cmd, r.exit = cmd, make(chan struct{})
	lines := make(chan string, 1)
	var said proctest.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			said.Write([]byte(sc.Text() + "\n"))
			if _, url, ok := strings.Cut(sc.Text(), "mcpbridge gateway: http://"); ok && !found {
				found = true
				lines <- strings.TrimSuffix(strings.Fields(url)[0], "/mcp")
			}
		}
		cmd.Wait()
		close(r.exit)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.exit
	})
	timer := time.NewTimer(60 * time.Second)
	defer timer.Stop()
	select {
	case r.addr = <-lines:
	case <-r.exit:
		t.Fatalf("%s exited:\n%s", r.name, said.String())
	case <-timer.C:
		t.Fatalf("%s said no address within a minute:\n%s", r.name, said.String())
	}
}

// startHAProxy starts HAProxy with the config file cfg (deploy/haproxy.cfg
// unless another is given) in front of the replicas, on a port free when
// it starts, and waits until a request through it is answered.
func (c *cluster) startHAProxy(cfg string) {
	t := c.t
	t.Helper()
	if cfg == "" {
		cfg = "../../deploy/haproxy.cfg"
	}
	for try := 0; ; try++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), "MCPBRIDGE_LISTEN=127.0.0.1:"+strconv.Itoa(port))
		for i := range 3 {
			addr := "127.0.0.1:1" // a replica this cluster lacks: down, never chosen
			if i < len(c.replicas) {
				addr = c.replicas[i].addr
			}
			env = append(env, fmt.Sprintf("MCPBRIDGE_REPLICA%d=%s", i+1, addr))
		}
		cmd := exec.Command("haproxy", "-db", "-f", cfg)
		cmd.Env = env
		c.hlog = new(proctest.Buffer)
		cmd.Stdout, cmd.Stderr = c.hlog, c.hlog
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		c.url = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
		ok := waitFor(20*time.Second, func() bool {
			select {
			case <-done:
				return true
			default:
			}
			resp, err := http.Get(strings.TrimSuffix(c.url, "/mcp") + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == 200
		})
		select {
		case <-done:
			if try < 3 && strings.Contains(c.hlog.String(), "cannot bind") {
				continue // the port was taken meanwhile
			}
			t.Fatalf("haproxy exited:\n%s", c.hlog.String())
		default:
		}
		if !ok {
			t.Fatalf("nothing answered through haproxy within 20s:\n%s", c.hlog.String())
		}
		c.haproxy, c.hdone = cmd, done
		t.Cleanup(func() { cmd.Process.Kill(); <-done })
		return
	}
}

// stop stops HAProxy, the replicas and Redis.
func (c *cluster) stop() {
	if c.haproxy != nil {
		c.haproxy.Process.Kill()
		<-c.hdone
	}
	for _, r := range c.replicas {
		r.cmd.Process.Kill()
		<-r.exit
	}
	if c.redis != nil {
		c.redis.Stop()
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitFor calls ok until it is true, or until d has passed: readiness the
// test polls, as nothing tells it. It reports whether ok came true.
func waitFor(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// A clusterUpstream is the server behind every replica: one go-sdk server
// for each replica's path, stateless, with the tools where (the replica's
// name), echo, and hold (which says it arrived, then waits for release).
type clusterUpstream struct {
	url     string
	arrived chan string // the replica of each hold that arrived
	mu      sync.Mutex
	release chan struct{}
	echoed  map[string]string // the text of each echo → the replica it came through
}

func newClusterUpstream(t testing.TB) *clusterUpstream {
	u := &clusterUpstream{arrived: make(chan string, 100), release: make(chan struct{}), echoed: map[string]string{}}
	mux := http.NewServeMux()
	for i := range 3 {
		name := fmt.Sprintf("replica%d", i+1)
		s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "where", Description: "The replica the call came through"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
		})
		type echoIn struct {
			Text string `json:"text"`
		}
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			u.mu.Lock()
			u.echoed[in.Text] = name
			u.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "hold", Description: "Wait to be released"}, func(ctx context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			u.mu.Lock()
			release := u.release
			u.mu.Unlock()
			u.arrived <- name
			select {
			case <-release:
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released on " + name}}}, nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
		mux.Handle("/"+name, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	u.url = srv.URL
	return u
}

// releaseHolds lets every hold in flight return.
func (u *clusterUpstream) releaseHolds() {
	u.mu.Lock()
	defer u.mu.Unlock()
	close(u.release)
	u.release = make(chan struct{})
}

// An answer is what a raw tools/call through the cluster came to.
type answer struct {
	id     string // its X-Request-Id
	status int    // HTTP status, 0 when no response came
	text   string // the result's text
	err    string // the JSON-RPC error's message, or the transport's error
}

func (a answer) ok() bool { return a.status == 200 && a.err == "" }

// call sends one 2026-07-28 tools/call of tool with args to url as the
// client of token, with request id id, and reads its answer within 30 s.
func call(ctx context.Context, url, token, id, tool string, args map[string]any) answer {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "cluster-test", "version": "1"},
		}}})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Request-Id", id)
	a := answer{id: id}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.err = err.Error()
		return a
	}
	defer resp.Body.Close()
	a.status = resp.StatusCode
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.err = err.Error()
		return a
	}
	if a.status != 200 {
		a.err = strings.TrimSpace(string(data))
		return a
	}
	msg := data
	if _, ev, ok := bytes.Cut(data, []byte("data: ")); ok {
		msg, _, _ = bytes.Cut(ev, []byte("\n"))
	}
	var m struct {
		Result *struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		a.err = "undecodable answer: " + string(data)
		return a
	}
	switch {
	case m.Error != nil:
		a.err = m.Error.Message
	case m.Result == nil:
		a.err = "no result: " + string(data)
	default:
		for _, c := range m.Result.Content {
			a.text += c.Text
		}
		if m.Result.IsError {
			a.err = "tool error: " + a.text
		}
	}
	return a
}

// served are the HAProxy log lines by request id: the replica that served
// the request and how its exchange ended (the termination state, "--"
// when it ended well).
func (c *cluster) served() map[string][]string {
	out := map[string][]string{}
	for line := range strings.SplitSeq(c.hlog.String(), "\n") {
		// "%ci:%cp %b/%s %ST %tsc %Ta %hr %{+Q}r"
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(f[1], "mcpbridge/") {
			continue
		}
		id := strings.Trim(f[5], "{}")
		out[id] = append(out[id], strings.TrimPrefix(f[1], "mcpbridge/")+" "+f[2]+" "+f[3])
	}
	return out
}

// auditIDs are the request ids of the tools/call records of every
// replica's audit log, with the replica that wrote each.
func (c *cluster) auditIDs() map[string][]string {
	out := map[string][]string{}
	for _, r := range c.replicas {
		data, _ := os.ReadFile(r.audit)
		for line := range strings.SplitSeq(string(data), "\n") {
			var rec struct {
				RequestID string `json:"request_id"`
				Method    string `json:"method"`
				Outcome   string `json:"outcome"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Method == "tools/call" {
				out[rec.RequestID] = append(out[rec.RequestID], r.name+" "+rec.Outcome)
			}
		}
	}
	return out
}

// A cluster of three replicas behind HAProxy acts as one gateway: a
// client's rate limit is one across the replicas, every call is recorded
// once in the audit log of the replica that served it under the id
// HAProxy logs, a replica killed in the middle of a run loses no call but
// those in flight on it (which end with a clear error), its 2025-11-25
// sessions are answered 404 and open anew, and Redis stopped and started
// again mid-run leaves every call served on the replicas' shares, none
// hanging, until it is back.
func TestCluster(t *testing.T) {
	c := startCluster(t, 3, false, "")
	ctx := t.Context()

	t.Run("a rate limit across the replicas", func(t *testing.T) {
		taken := 0
		for i := range 90 {
			a := call(ctx, c.url, "tok-limited", fmt.Sprintf("rate-%d", i), "up_echo", map[string]any{"text": "x"})
			switch {
			case a.ok():
				taken++
			case !strings.Contains(a.err, "rate limit exceeded"):
				t.Fatalf("call %d: %+v", i, a)
			}
		}
		// A burst of 30 on a rate of 0.001 a second: 30, within 10%;
		// each replica alone would take 30, 90 in all.
		if taken < 27 || taken > 33 {
			t.Errorf("%d of 90 calls taken, want the burst, 30, within 10%%", taken)
		}
	})

	t.Run("records join on the request id", func(t *testing.T) {
		for i := range 6 {
			if a := call(ctx, c.url, "tok-alice", fmt.Sprintf("join-%d", i), "up_where", nil); !a.ok() {
				t.Fatalf("%+v", a)
			}
		}
		// HAProxy's line and the replica's record are written as the
		// answer goes: they may come after it.
		waitFor(10*time.Second, func() bool {
			served, audited := c.served(), c.auditIDs()
			for i := range 6 {
				if id := fmt.Sprintf("join-%d", i); served[id] == nil || audited[id] == nil {
					return false
				}
			}
			return true
		})
		served, audited := c.served(), c.auditIDs()
		replicas := map[string]bool{}
		for i := range 6 {
			id := fmt.Sprintf("join-%d", i)
			h, a := served[id], audited[id]
			if len(h) != 1 || len(a) != 1 || strings.Fields(h[0])[0] != strings.Fields(a[0])[0] {
				t.Errorf("%s: haproxy logged %q, the replicas recorded %q: want one line each, naming the same replica", id, h, a)
				continue
			}
			replicas[strings.Fields(a[0])[0]] = true
		}
		if len(replicas) != 3 {
			t.Errorf("6 calls in round robin reached %d replicas, want 3", len(replicas))
		}
	})

	t.Run("a replica killed mid-run", func(t *testing.T) { killMidRun(t, c) })
	t.Run("redis stopped and started mid-run", func(t *testing.T) { redisMidRun(t, c) })
}

// sessionOf opens a 2025-11-25 session through url as alice and returns it
// with the replica that serves it.
func sessionOf(t *testing.T, url string) (*mcp.ClientSession, string) {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "cluster-test"}, nil)
	cs, err := cl.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT("tok-alice")}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "up_where"})
	if err != nil {
		t.Fatal(err)
	}
	return cs, res.Content[0].(*mcp.TextContent).Text
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// run calls echo through url as alice from workers goroutines until stop
// is closed, and returns every answer.
func run(ctx context.Context, url, prefix string, workers int, stop <-chan struct{}) <-chan []answer {
	out := make(chan []answer, 1)
	go func() {
		var mu sync.Mutex
		var all []answer
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					id := fmt.Sprintf("%s-%d-%d", prefix, w, i)
					a := call(ctx, url, "tok-alice", id, "up_echo", map[string]any{"text": id})
					mu.Lock()
					all = append(all, a)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		out <- all
	}()
	return out
}

func killMidRun(t *testing.T, c *cluster) {
	ctx := t.Context()
	victim := c.replicas[1]
	// Sessions of 2025-11-25, until one lives on the victim and one on
	// another replica (round robin places them in turn).
	homes := map[string]*mcp.ClientSession{}
	for i := 0; i < 9 && len(homes) < 3; i++ {
		cs, home := sessionOf(t, c.url)
		homes[home] = cs
	}
	if homes[victim.name] == nil || len(homes) < 2 {
		t.Fatalf("sessions landed on %v only", homes)
	}
	// Calls held on the upstream, one a replica or more, in flight.
	holds := make(chan answer, 6)
	for i := range 6 {
		go func() {
			id := fmt.Sprintf("hold-%d", i)
			holds <- call(ctx, c.url, "tok-alice", id, "up_hold", map[string]any{"text": id})
		}()
	}
	onVictim := 0
	for range 6 {
		if <-c.up.arrived == victim.name {
			onVictim++
		}
	}
	stop := make(chan struct{})
	ran := run(ctx, c.url, "kill", 4, stop)
	// Some calls through every replica before the kill, some after.
	before := len(c.served())
	waitFor(30*time.Second, func() bool { return len(c.served()) > before+60 })
	victim.cmd.Process.Kill()
	<-victim.exit
	before = len(c.served())
	waitFor(30*time.Second, func() bool { return len(c.served()) > before+100 })
	close(stop)
	answers := <-ran
	c.up.releaseHolds()
	var held []answer
	for range 6 {
		held = append(held, <-holds)
	}
	// HAProxy logs a request once it is done: the last lines may come
	// after their answers.
	waitFor(10*time.Second, func() bool {
		served := c.served()
		for _, a := range append(held, answers...) {
			if served[a.id] == nil {
				return false
			}
		}
		return true
	})
	served := c.served()

	// A call that failed was in flight on the victim: HAProxy logged it
	// there, cut by the replica (termination state S...), or, sent as the
	// replica died, it has no line of HAProxy's (which then closes the
	// client's connection); either way no live replica served it, nor
	// recorded it, and the upstream did not see it through one. The calls
	// held on the victim all failed so; the others, released, answered.
	audited := c.auditIDs()
	c.up.mu.Lock()
	echoed := maps.Clone(c.up.echoed)
	c.up.mu.Unlock()
	inFlight := func(a answer) bool {
		if a.status == 0 && !strings.Contains(a.err, "EOF") && !strings.Contains(a.err, "reset") {
			return false
		}
		if lines := served[a.id]; len(lines) > 0 && !cutOn(lines, victim.name) {
			return false
		}
		if on := echoed[a.id]; on != "" && on != victim.name {
			return false
		}
		for _, rec := range audited[a.id] {
			if !strings.HasPrefix(rec, victim.name+" ") {
				return false
			}
		}
		return true
	}
	failedHolds := 0
	for _, a := range held {
		if !a.ok() {
			failedHolds++
			if !inFlight(a) {
				t.Errorf("a held call failed (%+v): HAProxy logged %q, the replicas recorded %q", a, served[a.id], audited[a.id])
			}
		}
	}
	if failedHolds != onVictim {
		t.Errorf("%d held calls failed, %d were in flight on the killed replica", failedHolds, onVictim)
	}
	failed := 0
	for _, a := range answers {
		if a.ok() {
			continue
		}
		failed++
		if !inFlight(a) {
			t.Errorf("call %s failed (%d %s): HAProxy logged %q, the replicas recorded %q, the upstream saw it through %q: a call lost that was not in flight on the killed replica",
				a.id, a.status, a.err, served[a.id], audited[a.id], echoed[a.id])
		}
	}
	if t.Failed() {
		t.Logf("haproxy:\n%s", c.hlog.String())
	}
	if len(answers) < 100 || failed > 8 {
		t.Errorf("%d calls in the run, %d failed: want many, and only those in flight on the replica killed", len(answers), failed)
	}
	// The victim's session is gone: its next call is answered 404, and a
	// new session serves the client; the others' go on.
	for home, cs := range homes {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_where"})
		switch {
		case home == victim.name && !errors.Is(err, mcp.ErrSessionMissing) && !strings.Contains(fmt.Sprint(err), mcp.ErrSessionMissing.Error()):
			t.Errorf("a session of the killed replica: %v, want the spec's 404 (session missing)", err)
		case home != victim.name && err != nil:
			t.Errorf("a session of %s, alive: %v", home, err)
		}
	}
	if _, home := sessionOf(t, c.url); home == victim.name {
		t.Errorf("a new session opened on the killed replica")
	}
}

// cutOn reports whether lines, HAProxy's of one request, say it was
// served by replica and ended by it (termination state S...: the
// replica's connection closed mid-exchange).
func cutOn(lines []string, replica string) bool {
	if len(lines) != 1 {
		return false
	}
	f := strings.Fields(lines[0])
	return len(f) == 3 && f[0] == replica && strings.HasPrefix(f[2], "S")
}

func redisMidRun(t *testing.T, c *cluster) {
	ctx := t.Context()
	stop := make(chan struct{})
	ran := run(ctx, c.url, "redis", 4, stop)
	before := len(c.served())
	waitFor(30*time.Second, func() bool { return len(c.served()) > before+40 })
	c.redis.Stop()
	// Every live replica learns it (a request or the beat fails), stays
	// ready and says so.
	for _, r := range c.replicas {
		select {
		case <-r.exit:
			continue
		default:
		}
		if !waitFor(30*time.Second, func() bool { return storeState(r) == "unreachable" }) {
			t.Errorf("%s: /readyz does not say the store is unreachable: %q", r.name, storeState(r))
		}
	}
	// A client's limit holds on the replicas' shares: never more than its
	// figure across them.
	taken := 0
	for i := range 60 {
		if a := call(ctx, c.url, "tok-limited2", fmt.Sprintf("share-%d", i), "up_echo", map[string]any{"text": "x"}); a.ok() {
			taken++
		} else if !strings.Contains(a.err, "rate limit exceeded") {
			t.Errorf("a call of limited2 while the store is gone: %+v", a)
		}
	}
	if taken == 0 || taken > 33 {
		t.Errorf("the store gone: %d of 60 calls of a burst of 30 taken, want some and at most 30 (10%% more)", taken)
	}
	c.redis.Restart()
	for _, r := range c.replicas {
		select {
		case <-r.exit:
			continue
		default:
		}
		if !waitFor(30*time.Second, func() bool { return storeState(r) == "up" }) {
			t.Errorf("%s: /readyz does not say the store is back: %q", r.name, storeState(r))
		}
	}
	before = len(c.served())
	waitFor(30*time.Second, func() bool { return len(c.served()) > before+40 })
	close(stop)
	for _, a := range <-ran {
		if !a.ok() {
			t.Errorf("a call while redis stopped and started: %+v", a)
		}
	}
	for i, r := range c.replicas {
		if i == 1 {
			continue // killed
		}
		select {
		case <-r.exit:
			t.Errorf("%s exited", r.name)
		default:
		}
	}
}

// storeState is what r's /readyz says of the store.
func storeState(r *replica) string {
	resp, err := http.Get("http://" + r.addr + "/readyz")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var body struct{ Store string }
	json.NewDecoder(resp.Body).Decode(&body)
	return body.Store
}
