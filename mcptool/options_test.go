package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The tests of this file hold each field of Options, Command and HTTP to
// an effect the server or the host can see, so that a field the facade
// does not pass on to the client core fails one.

// newProbe returns the server TestCommand starts: its tools answer its
// environment, its working directory and its arguments, and it greets its
// standard error.
func newProbe() *mcp.Server {
	fmt.Fprintln(os.Stderr, "probe: started")
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "1"}, nil)
	answer := func(name string, fn func() string) {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "The server's " + name + "."},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return text(fn()), nil, nil
			})
	}
	answer("env", func() string { return strings.Join(os.Environ(), "\n") })
	answer("cwd", func() string { dir, _ := os.Getwd(); return dir })
	answer("args", func() string { return strings.Join(os.Args[1:], " ") })
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// callText calls name through p's handler and returns the text a model
// reads, failing the test on an error.
func callText(t *testing.T, p *mcptool.Provider, name, args string) string {
	t.Helper()
	res, err := p.Handler().Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Text()
}

// connected returns a provider of s connected with o, closed when the test
// ends.
func connected(t *testing.T, s *mcp.Server, o *mcptool.Options) *mcptool.Provider {
	t.Helper()
	p := mcptool.FromServer(s, o)
	t.Cleanup(func() { p.Close() })
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

// Command's Path, Args, Env, Dir and Stderr reach the process started.
func TestCommand(t *testing.T) {
	t.Setenv("MCPTOOL_PARENT_SECRET", "hunter2")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var stderr proctest.Buffer
	p := mcptool.FromCommand(mcptool.Command{
		Path: self,
		Args: []string{"first", "second"},
		Env:  map[string]string{serverEnv: "probe", "PROBE_GREETING": "hello", "GORACE": "atexit_sleep_ms=0"},
		Dir:  dir,
	}, &mcptool.Options{Name: "probe", Stderr: &stderr})
	defer p.Close()
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.Name() != "probe" {
		t.Errorf("Name %q; want Options.Name", p.Name())
	}
	env := callText(t, p, "env", "{}")
	if !strings.Contains(env, "\nPROBE_GREETING=hello") && !strings.HasPrefix(env, "PROBE_GREETING=hello") {
		t.Errorf("Env did not reach the server:\n%s", env)
	}
	if strings.Contains(env, "hunter2") {
		t.Error("the host's own environment reached the server")
	}
	if got := callText(t, p, "args", "{}"); got != "first second" {
		t.Errorf("args %q; want Args", got)
	}
	if got, want := callText(t, p, "cwd", "{}"), dir; got != want {
		if real, _ := filepath.EvalSymlinks(want); got != real {
			t.Errorf("cwd %q; want Dir %q", got, want)
		}
	}
	proctest.Eventually(t, "the server's stderr in Stderr", func() bool {
		return strings.Contains(stderr.String(), "probe: started")
	})
	// Without Options.Name, the command names the server.
	if got := mcptool.FromCommand(mcptool.Command{Path: "/usr/local/bin/notes-server"}, nil).Name(); got != "notes-server" {
		t.Errorf("default name %q; want notes-server", got)
	}
}

// staticToken is an OAuth handler that has its token already.
type staticToken string

func (s staticToken) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: string(s), TokenType: "Bearer"}), nil
}

func (staticToken) Authorize(context.Context, *http.Request, *http.Response) error {
	return errors.New("no authorization flow")
}

// countingTransport counts the requests of an http.Client.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// HTTP's URL, Headers, Client, OAuth and SSE reach the requests made.
func TestHTTP(t *testing.T) {
	var mu sync.Mutex
	var auths, methods []string
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auths, methods = append(auths, r.Header.Get("Authorization")), append(methods, r.Method)
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	greeter := func(*http.Request) *mcp.Server { return newGreeter() }
	streamable := httptest.NewServer(record(mcp.NewStreamableHTTPHandler(greeter, nil)))
	defer streamable.Close()
	sse := httptest.NewServer(record(mcp.NewSSEHandler(greeter, nil)))
	defer sse.Close()
	clients := &countingTransport{}

	for _, tc := range []struct {
		name string
		h    mcptool.HTTP
		// check says what is wrong with the requests the server saw.
		check func(auths, methods []string) string
	}{
		{"Headers", mcptool.HTTP{URL: streamable.URL, Headers: map[string]string{"Authorization": "Bearer from-headers"}},
			func(auths, _ []string) string {
				return want(auths[0] == "Bearer from-headers", "the header: %q", auths)
			}},
		{"OAuth", mcptool.HTTP{URL: streamable.URL, OAuth: staticToken("from-oauth")},
			func(auths, _ []string) string { return want(auths[0] == "Bearer from-oauth", "the token: %q", auths) }},
		{"Client", mcptool.HTTP{URL: streamable.URL, Client: &http.Client{Transport: clients}},
			func(_, methods []string) string {
				return want(int(clients.n.Load()) == len(methods), "%d requests through Client of %d", clients.n.Load(), len(methods))
			}},
		{"SSE", mcptool.HTTP{URL: sse.URL, SSE: true},
			func(_, methods []string) string {
				return want(methods[0] == http.MethodGet, "first request %s, not SSE's GET", methods[0])
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			auths, methods = nil, nil
			mu.Unlock()
			p := mcptool.FromURL(tc.h, &mcptool.Options{Name: "greeter"})
			if err := p.Connect(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := callText(t, p, "greet", `{"name": "Ada"}`); got != "Hello, Ada!" {
				t.Errorf("greet: %q", got)
			}
			p.Close()
			mu.Lock()
			defer mu.Unlock()
			if len(methods) == 0 {
				t.Fatal("URL: the server saw no request")
			}
			if msg := tc.check(auths, methods); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// want is "" when ok, else the message.
func want(ok bool, format string, args ...any) string {
	if ok {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// Name, Filter, OnEvent and Logger.
func TestOptions(t *testing.T) {
	var logs proctest.Buffer
	events := make(chan mcptool.Event, 10)
	server := newGreeter()
	p := connected(t, server, &mcptool.Options{
		Name:    "hello",
		Filter:  func(name string) bool { return name == "greet" },
		OnEvent: func(e mcptool.Event) { events <- e },
		Logger:  slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if p.Name() != "hello" {
		t.Errorf("Name %q", p.Name())
	}
	if defs := p.Tools(); len(defs) != 1 || defs[0].Name != "greet" {
		t.Errorf("Filter: tools %v; want greet alone", defs)
	}
	if _, err := p.Handler().Call(context.Background(), "farewell", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Errorf("Filter: a tool filtered out is served: %v", err)
	}
	if !strings.Contains(logs.String(), "connected to MCP server") {
		t.Errorf("Logger: the connection was not logged:\n%s", logs.String())
	}
	for _, want := range []mcptool.State{mcptool.StateConnecting, mcptool.StateReady} {
		if e := <-events; e.State != want || e.ToolsChanged {
			t.Errorf("OnEvent: %+v; want %v", e, want)
		}
	}
	mcp.AddTool(server, &mcp.Tool{Name: "wave", Description: "Wave."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text("👋"), nil, nil
		})
	if e := <-events; !e.ToolsChanged {
		t.Errorf("OnEvent: %+v; want the tools changed", e)
	}
}

// blocking is a server whose tool wait and resource wait:// answer only
// when cancelled.
func blocking() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	s.AddResource(&mcp.Resource{URI: "wait://", Name: "wait"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return s
}

// timedOut reports whether err is a timeout of the provider's, and d the
// bound that passed (not a default).
func timedOut(t *testing.T, what string, err error, took, d time.Duration) {
	t.Helper()
	var te *mcptool.TransportError
	if !errors.As(err, &te) || !te.Timeout() {
		t.Fatalf("%s: %v; want a timeout", what, err)
	}
	if took != d {
		t.Errorf("%s: timed out after %v; want %v", what, took, d)
	}
}

// Limits' timeouts each bound what they say, in place of the defaults.
func TestLimitsTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := connected(t, blocking(), &mcptool.Options{Limits: mcptool.Limits{Request: 7 * time.Second, Call: 3 * time.Second}})
		ctx := context.Background()
		start := time.Now()
		_, err := p.Handler().Call(ctx, "wait", nil)
		timedOut(t, "Call", err, time.Since(start), 3*time.Second)
		start = time.Now()
		_, err = p.ReadResource(ctx, "wait://")
		timedOut(t, "Request", err, time.Since(start), 7*time.Second)

		// A server that never answers the handshake.
		server := blocking()
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" || method == "server/discover" {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return next(ctx, method, req)
			}
		})
		silent := mcptool.FromServer(server, &mcptool.Options{Limits: mcptool.Limits{Connect: 5 * time.Second}})
		defer silent.Close()
		start = time.Now()
		err = silent.Connect(ctx)
		timedOut(t, "Connect", err, time.Since(start), 5*time.Second)
	})
}

// Limits' sizes each bound what a server may send.
func TestLimitsSizes(t *testing.T) {
	long := strings.Repeat("Greets. ", 20)
	newServer := func() *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
		for _, name := range []string{"one", "two"} {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: long},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					return text(strings.Repeat("x", 10_000)), nil, nil
				})
		}
		return s
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		limits mcptool.Limits
	}{
		{"Pages", mcptool.Limits{Pages: 1}},
		{"ListedItems", mcptool.Limits{ListedItems: 1}},
		{"ListedBytes", mcptool.Limits{ListedBytes: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mcptool.FromServer(newServer(), &mcptool.Options{Limits: tc.limits})
			defer p.Close()
			if err := p.Connect(ctx); !errors.As(err, new(*mcptool.ProtocolError)) {
				t.Fatalf("Connect: %v; want the listing refused", err)
			}
		})
	}
	t.Run("Description", func(t *testing.T) {
		p := connected(t, newServer(), &mcptool.Options{Limits: mcptool.Limits{Description: 20}})
		if d := p.Tools()[0].Description; len(d) > 20+len(" […]") || !strings.HasPrefix(d, "Greets. Greets.") {
			t.Errorf("description %q; want it cut to 20 bytes and marked", d)
		}
	})
	t.Run("MessageSize", func(t *testing.T) { // bounded over the wire: stdio and HTTP
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, nil))
		defer srv.Close()
		p := mcptool.FromURL(mcptool.HTTP{URL: srv.URL}, &mcptool.Options{Limits: mcptool.Limits{MessageSize: 4096}})
		defer p.Close()
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Handler().Call(ctx, "one", nil); err == nil || !strings.Contains(err.Error(), "4096") {
			t.Errorf("a 10 KB result under a 4 KB bound: %v", err)
		}
	})
}

// Telemetry's providers receive the spans and measurements, and Content
// puts the arguments on the call's span.
func TestTelemetry(t *testing.T) {
	rec := oteltest.New(t)
	p := connected(t, newGreeter(), &mcptool.Options{Telemetry: mcptool.Telemetry{Tracer: rec.Traces, Meter: rec.Metrics, Content: true}})
	callText(t, p, "greet", `{"name": "Ada"}`)
	span := rec.Span(t, "tools/call greet")
	if args := oteltest.Attrs(span)["gen_ai.tool.call.arguments"]; !strings.Contains(args, "Ada") {
		t.Errorf("Content: the span's arguments %q", args)
	}
	if len(rec.Points(t, "mcp.client.operation.duration")) == 0 {
		t.Error("Meter: no operation measured")
	}
}

// Reconnect rebuilds a lost connection.
func TestReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server := newGreeter()
		p := connected(t, server, &mcptool.Options{Reconnect: &mcptool.Reconnect{MinDelay: time.Second}})
		// Settled first: go-sdk v1.8.0's ServerSession.Close cancels the
		// subscriptions/listen handlers it knows of, and hangs on one whose
		// request arrives as it closes (the client opens it on connecting).
		synctest.Wait()
		for s := range server.Sessions() {
			s.Close()
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if st, err := p.State(); st != mcptool.StateReady {
			t.Fatalf("state %v (%v); want ready again", st, err)
		}
		if got := callText(t, p, "greet", `{"name": "Ada"}`); got != "Hello, Ada!" {
			t.Errorf("greet: %q", got)
		}
	})
}

// asker is a server whose tool ask asks the client for what its argument
// names (roots, a form, the model) and answers what it was given, and
// whose tool declared says what the client declared it answers.
func asker() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	type in struct {
		What string `json:"what"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the client."},
		func(_ context.Context, req *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
			got, ok := req.Params.InputResponses[in.What]
			if !ok {
				questions := map[string]mcp.InputRequest{
					"roots": &mcp.ListRootsParams{},
					"form": &mcp.ElicitParams{Message: "Name?",
						RequestedSchema: json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}}}`)},
					"model": &mcp.CreateMessageParams{MaxTokens: 10,
						Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hi"}}}},
				}
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{in.What: questions[in.What]}}, nil, nil
			}
			data, _ := json.Marshal(got)
			return text(string(data)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "declared", Description: "What did the client declare?"},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			caps := req.ClientCapabilities()
			_, apps := caps.Extensions["io.modelcontextprotocol/ui"]
			return text(fmt.Sprintf("roots %t, elicitation %t, sampling %t, apps %t",
				caps.RootsV2 != nil, caps.Elicitation != nil, caps.Sampling != nil, apps)), nil, nil
		})
	return s
}

// Roots, Elicitor, Sampling and Apps answer the server, or declare.
func TestHostOptions(t *testing.T) {
	p := connected(t, asker(), &mcptool.Options{
		Roots: []string{"/srv/project"},
		Elicitor: func(context.Context, *tool.Elicitation) (tool.Answer, error) {
			return tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		Sampling: &mcptool.Sampling{Model: cannedModel("Hello from the model")},
		Apps:     true,
	})
	for what, want := range map[string]string{
		"roots": "file:///srv/project",
		"form":  `"name":"Ada"`,
		"model": "Hello from the model",
	} {
		if got := callText(t, p, "ask", `{"what": "`+what+`"}`); !strings.Contains(got, want) {
			t.Errorf("asked for %s: %s; want %s", what, got, want)
		}
	}
	if got := callText(t, p, "declared", "{}"); got != "roots true, elicitation true, sampling true, apps true" {
		t.Errorf("with every option, declared %s", got)
	}
	// Without them, nothing is declared.
	bare := connected(t, asker(), nil)
	if got := callText(t, bare, "declared", "{}"); got != "roots false, elicitation false, sampling false, apps false" {
		t.Errorf("with none, declared %s", got)
	}
}
