package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// memory is the peak and the current resident set of process pid, in MiB,
// from /proc.
func memory(t *testing.T, pid int) (peak, now int) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err) // the figure is Linux's; the bound is checked elsewhere
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmHWM:":
			peak = kb >> 10
		case "VmRSS:":
			now = kb >> 10
		}
	}
	return peak, now
}

// rawPost sends body to the gateway at url as a client of version sends it
// (a 2025-11-25 one in session id, "" to open one), and returns the
// answer's status, session id and body.
func rawPost(ctx context.Context, url, version, id, body string) (int, string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data), err
}

// drain reads what serve logs, which the test does not read.
func drain(lines <-chan string) {
	for range lines {
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// A client that opens sessions and walks away holds at most its bound of
// them (SessionsPerClient: 100 by default; clients without a token share
// it), each refused past it with a JSON-RPC error naming the bound; the
// config's "limits" sets it, and a flag wins over the config. Before,
// nothing counted sessions: initialize in a loop held 33 800 sessions and
// 554 MiB after 15 s, and went on growing.
func TestServeBoundsTheSessionsAClientHolds(t *testing.T) {
	url, cmd, lines := startServe(t)
	go drain(lines)
	open := func(url string) (bool, string) {
		status, id, body, err := rawPost(t.Context(), url, "", "", initializeBody)
		if err != nil {
			t.Fatal(err)
		}
		return status == http.StatusOK && id != "" && !strings.Contains(body, `"error"`), body
	}
	held := 0
	var refusal string
	for range 150 {
		ok, body := open(url)
		if ok {
			held++
		} else if refusal == "" {
			refusal = body
		}
	}
	peak, _ := memory(t, cmd.Process.Pid)
	t.Logf("150 initializes: %d sessions held, peak RSS %d MiB", held, peak)
	if held != 100 || !strings.Contains(refusal, `100 sessions open for clients without a token, the bound (SessionsPerClient, 100)`) {
		t.Errorf("%d sessions held, want 100; the refusal: %s", held, refusal)
	}

	dir := t.TempDir()
	config := writeConfig(t, dir, "mcp.json", `{
		"mcpServers": {"demo": {"command": "`+bin+`", "args": ["serve-demo"]}},
		"gateway": {"limits": {"sessionsPerClient": 3, "sessionIdle": "10m"}}}`)
	for _, tc := range []struct {
		flags []string
		want  int
	}{{nil, 3}, {[]string{"--max-sessions-per-client", "5"}, 5}} {
		url, _, lines := startServe(t, append([]string{"--config", config}, tc.flags...)...)
		go drain(lines)
		for i := range tc.want + 1 {
			ok, body := open(url)
			if ok != (i < tc.want) {
				t.Errorf("%v: session %d opened: %v (%s)", tc.flags, i+1, ok, body)
			}
		}
	}
}

// A session client's calls end on the server when the client goes away
// from them, as a stateless client's do: the gateway's record of each says
// it was cancelled. Before, the calls of a client that had gone ran to
// their end (21 of 21 still running).
func TestServeCancelsTheCallsOfASessionClientGone(t *testing.T) {
	url, _, lines := startServe(t)
	_, id, _, err := rawPost(t.Context(), url, "", "", initializeBody)
	if err != nil || id == "" {
		t.Fatalf("initialize: %q %v", id, err)
	}
	rawPost(t.Context(), url, "2025-11-25", id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const calls = 5
	ctx, goAway := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer wg.Wait()
	started := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			// 20 s each, were it not cancelled; in flight once the
			// server reports its first step.
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_count","arguments":{"to":20,"delay_ms":1000},"_meta":{"progressToken":%d}}}`, 10+i, i)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			req.Header.Set("Mcp-Session-Id", id)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				started <- err
				return
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() && !strings.Contains(sc.Text(), "notifications/progress") {
			}
			started <- sc.Err()
			<-ctx.Done()
		})
	}
	for range calls {
		if err := <-started; err != nil {
			t.Fatal(err)
		}
	}
	goAway()
	cancelled, ended := 0, 0
	timeout := time.After(proctest.Bound)
	for ended < calls {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("serve ended")
			}
			if !strings.Contains(l, "method=tools/call") {
				continue
			}
			ended++
			if strings.Contains(l, "cancel") {
				cancelled++
			} else {
				t.Logf("not cancelled: %s", l)
			}
		case <-timeout:
			t.Fatalf("%d of %d calls of a client gone still run after %v", calls-ended, calls, proctest.Bound)
		}
	}
	if cancelled != calls {
		t.Errorf("%d of %d calls of a client gone were cancelled", cancelled, calls)
	}
}

// At the bound on open files, a new client still gets in while an attacker
// holds as many connections as it can open: slow bodies (headers, then a
// byte) and idle keep-alive connections. serve bounds the connections at
// half the files it may open (Connections), and at the bound closes the
// connection idle longest, or sending its request longest, for the new
// one. Before, the attacker's connections took every descriptor, and a new
// client waited, unanswered, until it gave up.
func TestServeLetsANewClientInWhileConnectionsAreHeld(t *testing.T) {
	cmd := exec.Command("sh", "-c", `ulimit -n 128 && exec "$0" "$@"`, bin, "serve", "--http", "127.0.0.1:0")
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	var url string
	for url == "" && sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "mcpbridge gateway: "); ok {
			url, _, _ = strings.Cut(u, " ")
		}
	}
	if url == "" {
		t.Fatalf("no address (%v)", sc.Err())
	}
	go io.Copy(io.Discard, stderr)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := range 200 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if i%2 == 0 {
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\n\r\n{", host)
			continue
		}
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	}
	ctx, cancel := context.WithTimeout(t.Context(), proctest.Bound)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "newcomer"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("a new client while 200 connections are held: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 1, "delay_ms": 0}})
	if err != nil || res.IsError {
		t.Fatalf("the new client's call: %v %+v", err, res)
	}
}

// Bodies of 4 MiB sent at once are held within the bytes bound
// (RequestBytes, 64 MiB; 16 MiB a client): past it they are refused, to be
// retried. Before, 150 at once took the gateway to 2.7 GB (2.8 GB peak
// here); the figure is its peak RSS.
func TestServeBoundsTheRequestBytesHeld(t *testing.T) {
	url, cmd, lines := startServe(t)
	go drain(lines)
	pad := strings.Repeat("x", 4<<20-400)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_count","arguments":{"to":1,"pad":"` + pad +
		`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 150 {
		wg.Go(func() {
			status, _, _, err := rawPost(t.Context(), url, "2026-07-28", "", body)
			if err != nil {
				status = 0
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	peak, _ := memory(t, cmd.Process.Pid)
	t.Logf("150 bodies of 4 MiB at once: answered %v (status: count), peak RSS %d MiB", statuses, peak)
	if peak > 400 {
		t.Errorf("peak RSS %d MiB for 150 bodies of 4 MiB", peak)
	}
	if statuses[http.StatusTooManyRequests]+statuses[http.StatusServiceUnavailable] == 0 {
		t.Errorf("no body refused: %v", statuses)
	}
}

// A keep-alive connection idle for ConnectionIdle is closed. Before,
// idle connections were never closed (200 of 200 still open after 75 s).
func TestServeClosesIdleConnections(t *testing.T) {
	url, _, lines := startServe(t, "--connection-idle", "300ms")
	go drain(lines)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", host)
	in := bufio.NewReader(c)
	resp, err := http.ReadResponse(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// The outcome, not its time (the bound keeps a failure from hanging).
	c.SetReadDeadline(time.Now().Add(proctest.Bound))
	if _, err := in.ReadByte(); err != io.EOF {
		t.Errorf("an idle connection: %v, want it closed", err)
	}
}
