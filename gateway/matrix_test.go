package gateway_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// TestGatewayMatchesDirect is the differential test of the gateway: for
// each way a server is reached (go-sdk's server over stdio, over
// streamable HTTP with sessions and stateless, over the legacy SSE
// transport; the TypeScript SDK's over stdio and streamable HTTP: the
// matrix server of matrixserver_test.go and testdata/matrixserver.mjs),
// for each protocol generation of go-sdk's client (a 2026-07-28 client,
// stateless through the gateway, and a 2025-11-25 session), and for every
// method the gateway relays and result sizes on both sides of each buffer
// and bound, a client's answer through the gateway is the one it gets from
// the server direct.
//
// Answers are compared as go-sdk's client hands them to a program,
// encoded as JSON, apart from what docs/gateway.md says the gateway
// changes, and only that:
//
//   - names are namespaced: a tool, resource, template and prompt the
//     server calls x the gateway serves as up_x (its server is "up"), and
//     a server's log message comes under the logger up/LOGGER;
//   - a 2026-07-28 result says it is complete ("resultType":"complete",
//     which the fast path adds and a result of an earlier protocol lacks)
//     and carries in its _meta the serverInfo of whoever answered: the
//     server direct, the gateway or the server through it;
//
// and what the protocol holds equal: an absent cacheScope is "public",
// which go-sdk's server writes. A client of 2026-07-28 states its log
// level on each request, which a server of an earlier protocol reached
// direct does not read: it is asked with logging/setLevel instead, as its
// own client would.
//
// Errors are compared by their JSON-RPC code and message. Where the
// protocol the client speaks to the server direct is not the one it
// speaks through the gateway (a server that speaks 2025-11-25 at most,
// reached by a 2026-07-28 client), the answer is compared all the same:
// the gateway is there so that a client need not care. A cell whose
// answer is known to differ says why in its upstream's differs (see
// [divergence]); one over the bound on a server's message is judged by
// judgeOverTheBound.
//
// The cells are deterministic: a tool that says something during a call
// (log, steps) answers only once the client heard it and told it to
// proceed, so that what a server says just before its answer, which the
// gateway and go-sdk's client may each pass on after it, is not raced.
func TestGatewayMatchesDirect(t *testing.T) {
	for _, u := range matrixUpstreams() {
		t.Run(u.name, func(t *testing.T) {
			u.start(t)
			for _, v := range versions {
				t.Run(v, func(t *testing.T) {
					t.Parallel()
					// A gateway of its own: the client is its only one.
					u := u.through(t)
					direct, through := u.connect(t, v, false), u.connect(t, v, true)
					t.Logf("protocol direct %s, through the gateway %s", direct.cs.InitializeResult().ProtocolVersion, through.cs.InitializeResult().ProtocolVersion)
					for _, c := range matrixCells(u, v) {
						t.Run(c.name, func(t *testing.T) {
							if c.big {
								bigCells <- struct{}{}
								defer func() { <-bigCells }()
							}
							d, g := direct, through
							if c.fresh {
								d, g = u.connect(t, v, false), u.connect(t, v, true)
							}
							_, known := u.differs[v+"/"+c.name]
							n := note{known: known}
							want := c.run(t, d, &n)
							got := c.run(t, g, &n)
							switch d, ok := u.differs[v+"/"+c.name]; {
							case ok:
								d.judge(t, want, got)
							case c.judge != nil:
								c.judge(t, want, got)
							case want != got:
								t.Errorf("through the gateway:\n%s\ndirect:\n%s", differ(got, want), differ(want, got))
							}
						})
					}
				})
			}
		})
	}
}

// bigCells runs the cells of the largest results one at a time, so that
// the test's memory stays a few of them.
var bigCells = make(chan struct{}, 1)

// The sizes of a result's text: empty, either side of 4 KiB (a reader's
// buffer), 64 KiB, 1 MiB, and 15 MiB, under the bound on a server's
// message (16 MiB); the text of overLimit is over it. resources/read and
// prompts/get take the sizes up to 64 KiB, tools/call all (the largest
// where matrixUpstream.big says).
var (
	matrixSizes = []int{0, 4095, 4097, 64 << 10, 1 << 20, 15 << 20}
	overLimit   = mcpclient.DefaultMaxMessageSize + 1
)

// A matrixUpstream is one way of reaching a matrix server: the gateway's
// config, and a client's own transport to it.
type matrixUpstream struct {
	name    string
	config  config.Server         // named "up"
	command func() *exec.Cmd      // for a server over stdio: a new process
	url     string                // for a server over HTTP
	sse     bool                  // ... over the legacy SSE transport
	gateway string                // the gateway's MCP endpoint in front of it (through)
	big     string                // the generation whose client tries a result of 15 MiB
	over    string                // ... and one over the bound
	differs map[string]divergence // by version/cell

	// Cells that depend on what one client does to a server that all
	// share (a resource's subscribers) take it.
	serial *sync.Mutex
}

// through is u with a gateway of its own in front of it, closed at the
// test's end.
func (u *matrixUpstream) through(t *testing.T) *matrixUpstream {
	c := *u
	c.gateway, _ = serve(t, start(t, []config.Server{u.config}, nil))
	return &c
}

// matrixUpstreams are the ways of reaching a matrix server, each with
// its server not yet started ([matrixUpstream.start]).
func matrixUpstreams() []*matrixUpstream {
	// docs/gateway.md (Proof): a server that asks on its own during a
	// call cannot, as the gateway speaks 2026-07-28 to it.
	asksOnItsOwn := divergence{
		why:  "docs/gateway.md: the gateway speaks 2026-07-28 to the server it shares, on which a server may ask only in its result",
		want: "cannot be sent while serving a request on protocol version 2026-07-28",
	}
	// The largest results take seconds under the race detector: one over
	// the bound is tried once over each transport (each a reader of the
	// gateway's), one of 15 MiB over stdio by a session (go-sdk's reader
	// and writer) and over stateless HTTP by the fast path's client (its
	// reader and writer). Where it can, the TypeScript SDK's server makes
	// them, in a fraction of the time a server under the race detector
	// takes, and reaches the same readers.
	return []*matrixUpstream{
		{name: "go-stdio", differs: map[string]divergence{"2025-11-25/asked-during-a-call": asksOnItsOwn}},
		{name: "go-http"},
		{name: "go-stateless", big: "2026-07-28", over: "2026-07-28",
			// A stateless server cannot ask a client of 2025-11-25, nor
			// tell it of an update, direct; through the gateway, which
			// speaks 2026-07-28 to it, it asks in its result and is
			// listened to, and the gateway tells the client's session.
			differs: map[string]divergence{
				"2025-11-25/asked-during-a-call": asksOnItsOwn,
				"2025-11-25/asked-in-the-result": {why: "direct, a stateless server cannot ask a client of 2025-11-25", want: `elicitation: accept Ada; sampling: client-model said \"sampled\"`},
				"2025-11-25/subscribe":           {why: "direct, a stateless server cannot tell a client of 2025-11-25 of an update", want: "\nupdated memo://matrix/readme"},
				"2025-11-25/cancellation":        {why: "direct, a client of 2025-11-25 cancels in a request of its own, which a stateless server cannot tie to the call", want: "block: cancelled"},
			}},
		{name: "ts-stdio", big: "2025-11-25", over: "2025-11-25"},
		{name: "ts-http", over: "2026-07-28"},
		{name: "go-sse", sse: true, over: "2025-11-25"},
	}
}

// start starts u's server, which ends with the test, and says how to
// reach it. The TypeScript SDK's needs Node.js from npm (npmtest).
func (u *matrixUpstream) start(t *testing.T) {
	u.serial = new(sync.Mutex)
	command := func(env map[string]string, name string, args ...string) {
		u.command = func() *exec.Cmd {
			cmd := exec.Command(name, args...)
			cmd.Env = os.Environ()
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			return cmd
		}
		u.config = config.Server{Command: name, Args: args, Env: env}
	}
	overHTTP := func(h http.Handler) {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		u.url = srv.URL
	}
	streamable := func(o *mcp.StreamableHTTPOptions) {
		s := newMatrixServer()
		overHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, o))
	}
	node := func() (string, map[string]string, string) {
		node := npmtest.Bin(t, "node")
		script, err := filepath.Abs(filepath.Join("testdata", "matrixserver.mjs"))
		if err != nil {
			t.Fatal(err)
		}
		return node, map[string]string{"NODE_PATH": filepath.Dir(filepath.Dir(node))}, script
	}
	switch u.name {
	case "go-stdio":
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		command(map[string]string{matrixChildEnv: "stdio", "GORACE": "atexit_sleep_ms=0"}, exe)
	case "go-http":
		streamable(nil)
	case "go-stateless":
		streamable(&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	case "go-sse":
		s := newMatrixServer()
		overHTTP(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
		u.config.Transport = config.SSE
	case "ts-stdio":
		node, env, script := node()
		command(env, node, script, "stdio")
	case "ts-http":
		node, env, script := node()
		u.url = nodeHTTP(t, node, env, script)
	}
	u.config.Name, u.config.Required, u.config.URL = "up", true, u.url
}

// nodeHTTP starts the TypeScript matrix server over streamable HTTP and
// returns its URL; it ends when the test does, as its stdin closes.
func nodeHTTP(t *testing.T, node string, env map[string]string, script string) string {
	cmd := exec.Command(node, script, "http")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr // says why it did not start, if it did not
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	line, lineErr := out.ReadString('\n')
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, out)
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // a bound on a failure
			cmd.Process.Kill()
			<-done
		}
	})
	if lineErr != nil {
		t.Fatalf("the TypeScript server did not start: %v", lineErr)
	}
	return strings.TrimSpace(line)
}

// A side is a client of one generation of a matrix server, direct or
// through the gateway, and what it heard.
type side struct {
	through bool
	version string
	cs      *mcp.ClientSession
	heard   *heard
}

// name is the name the client calls the server's item name by.
func (s *side) name(name string) string {
	if s.through {
		return "up_" + name
	}
	return name
}

// own is the server's name of an item the client was served as name.
func (s *side) own(name string) string {
	if s.through {
		return strings.TrimPrefix(name, "up_")
	}
	return name
}

// heard is what a client was told on its own by the server: log
// messages, progress and resources updated, each a line.
type heard struct {
	logs, progress, updates chan string
}

// tell puts line on c, or drops it once c holds its fill (far more than
// a cell waits for), so that a flood never blocks go-sdk's client.
func tell(c chan<- string, line string) {
	select {
	case c <- line:
	default:
	}
}

// connect connects a client of version to the server, through the
// gateway or direct, closed at the test's end. The client answers a form
// with the name Ada, and a sampling request with a text of its model's.
func (u *matrixUpstream) connect(t *testing.T, version string, through bool) *side {
	t.Helper()
	s := &side{through: through, version: version, heard: &heard{logs: make(chan string, 64), progress: make(chan string, 64), updates: make(chan string, 64)}}
	opts := &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			logger := r.Params.Logger
			if through {
				logger = strings.TrimPrefix(strings.TrimPrefix(logger, "up"), "/")
			}
			tell(s.heard.logs, fmt.Sprintf("%s %s: %v", r.Params.Level, logger, r.Params.Data))
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			p := r.Params
			tell(s.heard.progress, fmt.Sprintf("%v: %v of %v, %s", p.ProgressToken, p.Progress, p.Total, p.Message))
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			tell(s.heard.updates, "updated "+r.Params.URI)
		},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "client-model", Content: &mcp.TextContent{Text: "sampled"}}, nil
		},
	}
	s.cs = u.session(t, version, through, opts, nil)
	return s
}

// session connects a client with opts; if setup is not nil it is given
// the client first, and the raw answers are read along (for a task, which
// go-sdk decodes as an empty result).
func (u *matrixUpstream) session(t *testing.T, version string, through bool, opts *mcp.ClientOptions, setup func(*mcp.Client)) *mcp.ClientSession {
	t.Helper()
	tap := setup != nil
	client := http.DefaultClient
	if tap {
		client = &http.Client{Transport: &sdkfix.HTTPTap{Next: http.DefaultTransport}}
	}
	var tr mcp.Transport
	switch {
	case through:
		tr = &mcp.StreamableClientTransport{Endpoint: u.gateway, HTTPClient: client}
	case u.command != nil:
		tr = &mcp.CommandTransport{Command: u.command()}
		if tap {
			tr = &sdkfix.Capture{Transport: tr}
		}
	case u.sse:
		tr = &mcp.SSEClientTransport{Endpoint: u.url, HTTPClient: client}
	default:
		tr = &mcp.StreamableClientTransport{Endpoint: u.url, HTTPClient: client}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "matrix-client", Version: "1"}, opts)
	if setup != nil {
		setup(c)
	}
	if u.sse && !through {
		// The legacy transport is of protocols before 2026-07-28, to
		// which go-sdk's client falls back, but not always: once in a
		// loaded run it settled on 2026-07-28.
		version = min(version, "2025-11-25")
	}
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (through the gateway: %v): %v", through, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A matrixCell is one request, or a short exchange, made of both sides in
// turn, direct first; run returns what the client got, as a text the two
// must agree on.
type matrixCell struct {
	name  string
	run   func(t *testing.T, s *side, n *note) string
	judge func(t *testing.T, direct, through string) // if set, in place of equality
	big   bool                                       // its result is tens of MiB
	fresh bool                                       // on new sessions: a client's session may not survive it
}

// A divergence is a cell whose answer through the gateway is documented
// to differ from the answer direct, or differs because of what the
// server's transport cannot do direct: the answer through the gateway
// holds want, and still differs from direct's (else the entry is stale).
type divergence struct {
	why  string
	want string
}

func (d divergence) judge(t *testing.T, direct, through string) {
	t.Logf("differs from direct, as expected: %s", d.why)
	if !strings.Contains(through, d.want) {
		t.Errorf("through the gateway:\n%s\nwant it to hold %q", differ(through, direct), d.want)
	}
	if direct == through {
		t.Errorf("the answer is now the same direct and through the gateway: the divergence entry is stale (%s)", d.why)
	}
}

// A note is what the direct side of a cell noted for the gateway's.
type note struct {
	heard bool // it heard what it waited for from the server
	// known says the cell is known to differ (matrixUpstream.differs):
	// direct waits only silentWithin for what it is known not to hear.
	known bool
}

// matrixCells are the cells of a client of version of u.
func matrixCells(u *matrixUpstream, version string) []matrixCell {
	cells := []matrixCell{
		{name: "tools-list", run: ignore(sideTools)},
		{name: "tools-call", run: func(t *testing.T, s *side, _ *note) string {
			return callTool(t, s, "echo", map[string]any{"text": "hi"}, nil)
		}},
	}
	for _, n := range matrixSizes {
		if n > 1<<20 && u.big != version {
			continue
		}
		cells = append(cells, matrixCell{name: fmt.Sprintf("tools-call-%d", n), big: n > 1<<20,
			run: func(t *testing.T, s *side, _ *note) string {
				return callTool(t, s, "sized", map[string]any{"n": n}, nil)
			}})
	}
	if u.over == version {
		cells = append(cells, matrixCell{name: fmt.Sprintf("tools-call-%d", overLimit), big: true, fresh: true, run: u.overTheBound, judge: judgeOverTheBound})
	}
	cells = append(cells,
		matrixCell{name: "resources-list", run: ignore(sideResources)},
		matrixCell{name: "resources-templates-list", run: ignore(sideTemplates)},
		matrixCell{name: "resources-read", run: func(t *testing.T, s *side, _ *note) string { return readResource(t, s, "memo://matrix/readme") }},
	)
	for _, n := range matrixSizes[:4] {
		cells = append(cells, matrixCell{name: fmt.Sprintf("resources-read-%d", n),
			run: func(t *testing.T, s *side, _ *note) string {
				return readResource(t, s, fmt.Sprintf("memo://matrix/sized/%d", n))
			}})
	}
	cells = append(cells,
		matrixCell{name: "prompts-list", run: ignore(sidePrompts)},
		matrixCell{name: "prompts-get", run: func(t *testing.T, s *side, _ *note) string {
			return getPrompt(t, s, "greet", map[string]string{"who": "Ada"})
		}},
	)
	for _, n := range matrixSizes[:4] {
		cells = append(cells, matrixCell{name: fmt.Sprintf("prompts-get-%d", n),
			run: func(t *testing.T, s *side, _ *note) string {
				return getPrompt(t, s, "sized", map[string]string{"n": fmt.Sprint(n)})
			}})
	}
	cells = append(cells,
		matrixCell{name: "completion-prompt", run: func(t *testing.T, s *side, _ *note) string {
			return sideComplete(t, s, &mcp.CompleteReference{Type: "ref/prompt", Name: s.name("greet")}, "who", "A")
		}},
		matrixCell{name: "completion-template", run: func(t *testing.T, s *side, _ *note) string {
			return sideComplete(t, s, &mcp.CompleteReference{Type: "ref/resource", URI: "memo://matrix/sized/{n}"}, "n", "40")
		}},
		matrixCell{name: "logging", run: logDuringACall},
		matrixCell{name: "progress", run: progressOfACall},
		matrixCell{name: "cancellation", run: cancelACall},
		matrixCell{name: "asked-during-a-call", run: func(t *testing.T, s *side, _ *note) string { return callTool(t, s, "ask", map[string]any{}, nil) }},
		matrixCell{name: "asked-in-the-result", run: func(t *testing.T, s *side, _ *note) string {
			return callTool(t, s, "ask_in_result", map[string]any{}, nil)
		}},
		matrixCell{name: "subscribe", run: func(t *testing.T, s *side, n *note) string {
			u.serial.Lock()
			defer u.serial.Unlock()
			return subscribe(t, s, n)
		}},
		matrixCell{name: "task", run: func(t *testing.T, s *side, _ *note) string { return callTask(t, u, s) }},
	)
	return cells
}

// ignore makes run a cell's, which needs no note.
func ignore(run func(*testing.T, *side) string) func(*testing.T, *side, *note) string {
	return func(t *testing.T, s *side, _ *note) string { return run(t, s) }
}

// outcome is v as JSON, or err as a refusal, without what the gateway is
// documented to change (see TestGatewayMatchesDirect).
func outcome(v any, err error) string {
	if err != nil {
		var w *jsonrpc.Error
		if errors.As(err, &w) {
			return fmt.Sprintf("error %d: %s", w.Code, w.Message)
		}
		return "error: " + err.Error()
	}
	data, err := json.Marshal(shrink(v))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return string(data)
	}
	if m["resultType"] == "complete" {
		delete(m, "resultType")
	}
	// An absent cacheScope is "public" (the protocol's default, which
	// go-sdk's server writes, the gateway's too).
	if scope, ok := m["cacheScope"]; ok && scope == "" {
		m["cacheScope"] = "public"
	}
	if meta, ok := m["_meta"].(map[string]any); ok {
		delete(meta, mcp.MetaKeyServerInfo)
		if len(meta) == 0 {
			delete(m, "_meta")
		}
	}
	data, err = json.Marshal(m)
	if err != nil {
		return "not JSON: " + err.Error()
	}
	return string(data)
}

// shrink is v with each text of a result longer than 64 KiB in its
// place's digest and length, so that a large result is compared without
// encoding it again.
func shrink(v any) any {
	const long = 64 << 10
	short := func(text string) string {
		if len(text) <= long {
			return text
		}
		return fmt.Sprintf("%d bytes, sha256 %x", len(text), sha256.Sum256([]byte(text)))
	}
	contents := func(parts []mcp.Content) []mcp.Content {
		out := make([]mcp.Content, len(parts))
		for i, p := range parts {
			out[i] = p
			if tc, ok := p.(*mcp.TextContent); ok && len(tc.Text) > long {
				c := *tc
				c.Text = short(tc.Text)
				out[i] = &c
			}
		}
		return out
	}
	switch r := v.(type) {
	case *mcp.CallToolResult:
		if r == nil {
			return v
		}
		c := *r
		c.Content = contents(r.Content)
		return &c
	case *mcp.ReadResourceResult:
		if r == nil {
			return v
		}
		c := *r
		c.Contents = make([]*mcp.ResourceContents, len(r.Contents))
		for i, rc := range r.Contents {
			cc := *rc
			cc.Text = short(rc.Text)
			c.Contents[i] = &cc
		}
		return &c
	case *mcp.GetPromptResult:
		if r == nil {
			return v
		}
		c := *r
		c.Messages = make([]*mcp.PromptMessage, len(r.Messages))
		for i, m := range r.Messages {
			mc := *m
			if parts := contents([]mcp.Content{m.Content}); len(parts) == 1 {
				mc.Content = parts[0]
			}
			c.Messages[i] = &mc
		}
		return &c
	}
	return v
}

// differ is a, long as it may be, shown around where it differs from b.
func differ(a, b string) string {
	const around = 400
	if len(a) <= 2*around {
		return a
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-around/2), min(len(a), i+around)
	return fmt.Sprintf("(%d bytes, from byte %d) ...%s...", len(a), from, a[from:to])
}

// overTheBound calls sized for a text over the bound on a server's
// message; through the gateway, then echo, on the same session. Direct,
// go-sdk's client is asked only where it bounds the message too.
func (u *matrixUpstream) overTheBound(t *testing.T, s *side, _ *note) string {
	if !s.through && u.command == nil && !u.sse {
		return "not asked: go-sdk's client does not bound an event of streamable HTTP"
	}
	out := callTool(t, s, "sized", map[string]any{"n": overLimit}, nil)
	if s.through {
		out += "\n" + callTool(t, s, "echo", map[string]any{"text": "after"}, nil)
	}
	return out
}

// sizeRefusal is a refusal of a message over a bound on its size: the
// gateway's (mcptool's, naming the bound) and go-sdk's own client's.
var sizeRefusal = regexp.MustCompile(`^error.*(exceeds the 16777216-byte (line|size) limit|exceeded the configured maximum line length)`)

// judgeOverTheBound: SECURITY.md bounds one message from a server, over
// any transport, at 16 MiB (Limits.MessageSize): past it the request it
// answers fails naming the limit, and the connection goes on. go-sdk's
// own client bounds a stdio line (naming it) and a legacy SSE event (it
// loses the connection: EOF) alike, but not an event of streamable HTTP,
// where it takes the message.
func judgeOverTheBound(t *testing.T, direct, through string) {
	refusal, after, _ := strings.Cut(through, "\n")
	if !sizeRefusal.MatchString(refusal) || !strings.Contains(refusal, "16777216") {
		t.Errorf("through the gateway, a message over the bound: %s; want a refusal naming the bound of 16777216 bytes", differ(refusal, ""))
	}
	if after != `{"content":[{"text":"echo: after","type":"text"}]}` {
		t.Errorf("through the gateway, the call after it: %s", after)
	}
	if !strings.HasPrefix(direct, "error") && !strings.HasPrefix(direct, "not asked") {
		t.Errorf("direct, go-sdk's client: %s; want its refusal of a message over its bound", differ(direct, ""))
	}
}

func callTool(t *testing.T, s *side, name string, args any, meta mcp.Meta) string {
	res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Meta: meta, Name: s.name(name), Arguments: args})
	return outcome(res, err)
}

func sideTools(t *testing.T, s *side) string {
	var tools []*mcp.Tool
	for tl, err := range s.cs.Tools(t.Context(), nil) {
		if err != nil {
			return outcome(nil, err)
		}
		c := *tl
		c.Name = s.own(c.Name)
		tools = append(tools, &c)
	}
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return outcome(tools, nil)
}

func sideResources(t *testing.T, s *side) string {
	var all []*mcp.Resource
	for r, err := range s.cs.Resources(t.Context(), nil) {
		if err != nil {
			return outcome(nil, err)
		}
		c := *r
		c.Name = s.own(c.Name)
		all = append(all, &c)
	}
	slices.SortFunc(all, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	return outcome(all, nil)
}

func sideTemplates(t *testing.T, s *side) string {
	var all []*mcp.ResourceTemplate
	for r, err := range s.cs.ResourceTemplates(t.Context(), nil) {
		if err != nil {
			return outcome(nil, err)
		}
		c := *r
		c.Name = s.own(c.Name)
		all = append(all, &c)
	}
	slices.SortFunc(all, func(a, b *mcp.ResourceTemplate) int { return strings.Compare(a.URITemplate, b.URITemplate) })
	return outcome(all, nil)
}

func sidePrompts(t *testing.T, s *side) string {
	var all []*mcp.Prompt
	for p, err := range s.cs.Prompts(t.Context(), nil) {
		if err != nil {
			return outcome(nil, err)
		}
		c := *p
		c.Name = s.own(c.Name)
		all = append(all, &c)
	}
	slices.SortFunc(all, func(a, b *mcp.Prompt) int { return strings.Compare(a.Name, b.Name) })
	return outcome(all, nil)
}

func readResource(t *testing.T, s *side, uri string) string {
	res, err := s.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	return outcome(res, err)
}

func getPrompt(t *testing.T, s *side, name string, args map[string]string) string {
	res, err := s.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: s.name(name), Arguments: args})
	return outcome(res, err)
}

func sideComplete(t *testing.T, s *side, ref *mcp.CompleteReference, arg, value string) string {
	res, err := s.cs.Complete(t.Context(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
	return outcome(res, err)
}

// The bounds on waiting for what a server says on its own: what is due
// comes within milliseconds, so reaching heardWithin is a failure; what
// direct never heard is waited for through the gateway for silentWithin,
// so that something the gateway makes up shows.
const (
	heardWithin  = 10 * time.Second
	silentWithin = time.Second
	sayAgain     = 100 * time.Millisecond
)

// said is what the server said on c, waited for until last: direct notes
// whether it heard it, and the gateway's side waits for what direct did
// not hear only silentWithin. again, if not nil, is called every
// sayAgain while last is not heard, to have the server say it again.
func said(s *side, n *note, c <-chan string, last string, again func()) []string {
	bound := heardWithin
	if s.through && !n.heard || !s.through && n.known {
		bound = silentWithin
	}
	var lines []string
	timeout := time.After(bound)
	var tick <-chan time.Time
	if again != nil {
		t := time.NewTicker(sayAgain)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			again()
		case line := <-c:
			lines = append(lines, line)
			if strings.HasSuffix(line, last) {
				n.heard = n.heard || !s.through
				return lines
			}
		case <-timeout:
			return append(lines, "(nothing more)")
		}
	}
}

// logDuringACall asks for messages of info and above, by the protocol the
// session speaks (logging/setLevel, or the log level in the call's _meta),
// and calls log: the messages heard during the call, and its result.
func logDuringACall(t *testing.T, s *side, n *note) string {
	var meta mcp.Meta
	if s.cs.InitializeResult().ProtocolVersion >= "2026-07-28" {
		meta = mcp.Meta{mcp.MetaKeyLogLevel: "info"}
	} else if err := s.cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		return outcome(nil, err)
	}
	key := s.key(t)
	return duringACall(t, s, "log", key, meta, func() []string {
		lines := said(s, n, s.heard.logs, "end "+key, nil)
		for i := range lines {
			lines[i] = strings.ReplaceAll(lines[i], key, "KEY")
		}
		return lines
	})
}

// progressOfACall calls steps with a progress token: the progress heard
// during the call, and its result.
func progressOfACall(t *testing.T, s *side, n *note) string {
	return duringACall(t, s, "steps", s.key(t), mcp.Meta{"progressToken": "tok"}, func() []string { return said(s, n, s.heard.progress, "step 2", nil) })
}

// duringACall calls the tool name, which answers once told to proceed:
// what hear heard while it ran, and its result.
func duringACall(t *testing.T, s *side, name, key string, meta mcp.Meta, hear func() []string) string {
	answered := make(chan string, 1)
	go func() { answered <- callTool(t, s, name, map[string]any{"key": key}, meta) }()
	heard := hear()
	callTool(t, s, "proceed", map[string]any{"key": key}, nil)
	return strings.Join(append(heard, <-answered), "\n")
}

// key is a key for the server's calls of block, log and steps of this
// cell's side.
func (s *side) key(t *testing.T) string {
	return fmt.Sprintf("%s/%v", t.Name(), s.through)
}

// cancelACall calls block, cancels the call once the server runs it, and
// asks the server how the call ended.
func cancelACall(t *testing.T, s *side, n *note) string {
	key := s.key(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	called := make(chan error, 1)
	go func() {
		_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: s.name("block"), Arguments: map[string]any{"key": key}})
		called <- err
	}()
	started := callTool(t, s, "started", map[string]any{"key": key}, nil)
	cancel()
	err := <-called
	// A call known not to be cancelled direct is known still running
	// within silentWithin.
	args := map[string]any{"key": key}
	if n.known && !s.through {
		args["within"] = silentWithin.Milliseconds()
	}
	ended := callTool(t, s, "ended", args, nil)
	return fmt.Sprintf("%s\ncall: %v\n%s", started, errors.Is(err, context.Canceled), ended)
}

// subscribe subscribes to the readme, has the server say it changed, and
// unsubscribes: the updates heard.
//
// On protocol 2026-07-28 go-sdk's Subscribe opens the subscriptions/listen
// stream from a goroutine of its own and returns at once, so a touch can
// reach the server before the listen does (go-sdk issues 1171 and 1283):
// until an update is heard, the readme is touched again.
func subscribe(t *testing.T, s *side, n *note) string {
	uri := "memo://matrix/readme"
	if err := s.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		return outcome(nil, err)
	}
	touch := func() string { return callTool(t, s, "touch", map[string]any{"uri": uri}, nil) }
	touched := touch()
	heard := said(s, n, s.heard.updates, "updated "+uri, func() { touch() })
	if err := s.cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return outcome(nil, err)
	}
	return touched + "\n" + strings.Join(heard, "\n")
}

// callTask calls task as a client that follows tasks would: of
// 2026-07-28 declaring the tasks extension, following to its end the task
// it may be handed; a client of 2025-11-25 calls it plainly. The result.
func callTask(t *testing.T, u *matrixUpstream, s *side) string {
	if s.version < "2026-07-28" {
		return callTool(t, s, "task", map[string]any{}, nil)
	}
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	opts.Capabilities.AddExtension(matrixTasks, nil)
	cs := u.session(t, s.version, s.through, opts, func(c *mcp.Client) {
		if err := mcp.AddSendingCustomMethod[*taskParams, *taskWire](c, "tasks/get"); err != nil {
			t.Fatal(err)
		}
	})
	ctx, caught := sdkfix.WithCatch(t.Context())
	defer caught.Release()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.name("task"), Arguments: map[string]any{}})
	if plain, ok := caught.Taken(err); ok {
		// A result answered at once, which the catch takes from go-sdk.
		res, err = new(mcp.CallToolResult), nil
		if err := json.Unmarshal(plain, res); err != nil {
			return "the result: " + err.Error()
		}
	}
	raw, ok := caught.Raw()
	var task taskWire
	if err != nil || !ok || json.Unmarshal(raw, &task) != nil || task.ResultType != "task" {
		return outcome(res, err)
	}
	for range maxPolls {
		w, err := mcp.CallCustomMethod[*taskParams, *taskWire](t.Context(), cs, "tasks/get", &taskParams{TaskID: task.TaskID})
		switch {
		case err != nil:
			return outcome(nil, err)
		case w.Status == "completed":
			var res mcp.CallToolResult
			if err := json.Unmarshal(w.Result, &res); err != nil {
				return "the task's result: " + err.Error()
			}
			return outcome(&res, nil)
		case w.Status == "failed" || w.Status == "cancelled":
			return outcome(w, nil)
		}
	}
	return fmt.Sprintf("the task did not end in %d polls", maxPolls)
}
