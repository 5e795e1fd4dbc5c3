package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// The test binary doubles as the demo server, which the fault tests start
// as a subprocess and kill, and as the matrix server (matrixserver_test.go).
func TestMain(m *testing.M) {
	serveMatrixIfChild()
	demo.ServeIfChild()
	goleak.VerifyTestMain(m)
}

// An upstream is a go-sdk server the gateway fronts, served over streamable
// HTTP on loopback, that records what reaches it.
type upstream struct {
	name string
	srv  *mcp.Server
	http *httptest.Server

	mu      sync.Mutex
	auth    []string      // Authorization headers it was sent
	blocked chan struct{} // the "block" tool: closed when a call starts
	release chan struct{} // ... which returns when this is closed
	ended   chan error    // ... and reports how it ended
	proceed chan struct{} // the "steps" tool returns on a receive
}

// newUpstream starts a server with the tools echo (returns its text), log
// (logs a line at info level),
// block (waits to be released or cancelled), steps (reports progress
// twice, then waits for proceed), a resource, a template and a prompt.
func newUpstream(t *testing.T, name string) *upstream {
	t.Helper()
	u := &upstream{name: name, blocked: make(chan struct{}, 8), release: make(chan struct{}), ended: make(chan error, 8), proceed: make(chan struct{}, 8)}
	u.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{Instructions: "use " + name + " well"})
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(u.srv, &mcp.Tool{Name: "echo", Description: "Echo the text back from " + name}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ": " + in.Text}}}, nil, nil
	})
	mcp.AddTool(u.srv, &mcp.Tool{Name: "log", Description: "Log a line"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "tool", Data: "logged by " + name})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil, nil
	})
	mcp.AddTool(u.srv, &mcp.Tool{Name: "block", Description: "Wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		u.blocked <- struct{}{}
		select {
		case <-u.release:
			u.ended <- nil
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
		case <-ctx.Done():
			u.ended <- ctx.Err()
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(u.srv, &mcp.Tool{Name: "steps", Description: "Report progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)})
			}
			// Progress that arrives after the result is dropped, so the
			// test says when it has seen it.
			select {
			case <-u.proceed:
			case <-ctx.Done():
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	u.srv.AddResource(&mcp.Resource{URI: "memo://" + name + "/readme", Name: "readme", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me, from " + name}}}, nil
	})
	u.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "memo://" + name + "/notes/{id}", Name: "note"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "note " + req.Params.URI}}}, nil
	})
	u.srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"] + " from " + name}}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.srv }, nil)
	u.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.auth = append(u.auth, r.Header.Get("Authorization"))
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.http.Close)
	return u
}

// serveStateless serves s statelessly (protocol 2026-07-28) over
// streamable HTTP on loopback, through wrap if it is not nil, until the
// test ends, and returns its URL.
func serveStateless(tb testing.TB, s *mcp.Server, wrap func(http.Handler) http.Handler) string {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

func (u *upstream) config(required bool) config.Server {
	return config.Server{Name: u.name, URL: u.http.URL, Required: required}
}

// start starts a gateway over the upstreams, closed at the test's end.
func start(tb testing.TB, servers []config.Server, o *gateway.Options) *gateway.Gateway {
	tb.Helper()
	g, err := gateway.Start(tb.Context(), &config.Config{Servers: servers}, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close() })
	return g
}

// serve serves g's HTTP endpoints on loopback and returns the MCP
// endpoint's URL.
func serve(tb testing.TB, g *gateway.Gateway) (string, *httptest.Server) {
	tb.Helper()
	srv := httptest.NewServer(g.Handler())
	tb.Cleanup(srv.Close)
	return srv.URL + "/mcp", srv
}

// The two protocol generations a client may speak to the gateway.
var versions = []string{"2026-07-28", "2025-11-25"}

// connect connects a go-sdk client speaking version to url.
func connect(t *testing.T, url, version string, opts *mcp.ClientOptions, client *http.Client) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		data, _ := json.Marshal(res)
		t.Fatalf("want one content part, got %s", data)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text, got %T", res.Content[0])
	}
	return tc.Text
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	return listed(t, cs.Tools(t.Context(), nil), func(tl *mcp.Tool) string { return tl.Name })
}

// listed is the name of each item of a client's listing, in order; an
// error fails the test.
func listed[T any](t *testing.T, items iter.Seq2[T, error], name func(T) string) []string {
	t.Helper()
	var names []string
	for it, err := range items {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name(it))
	}
	return names
}
