package mcpclient_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The servers the tests talk to, and the providers that reach them: a
// go-sdk server in this process, the test binary as a hostile server over
// stdio or a pipe, a server over streamable HTTP. Each provider made here
// is closed when its test ends.

// inProcess connects a provider named "notes" to server in this process
// and counts the requests the server receives, by method.
func inProcess(t *testing.T, server *mcp.Server, opts ...mcpclient.Option) (*mcpclient.Provider, *counter) {
	t.Helper()
	c := &counter{}
	server.AddReceivingMiddleware(c.middleware)
	p := mcpclient.FromServer("notes", server, opts...)
	t.Cleanup(func() { p.Close() })
	connect(t, p)
	return p, c
}

// raw starts the test binary as a hostile server in mode over stdio.
func raw(t *testing.T, mode string, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	opts = append([]mcpclient.Option{mcpclient.WithName("raw"), mcpclient.WithEnv(childEnv(hostile.ChildEnv, mode))}, opts...)
	p := mcpclient.FromCommand(self(t), nil, opts...)
	t.Cleanup(func() { p.Close() })
	return p
}

// pipeProvider connects a provider to a hostile server in this process.
func pipeProvider(t *testing.T, mode string, opts ...mcpclient.Option) (*mcpclient.Provider, *hostile.Server, error) {
	t.Helper()
	s, err := hostile.New(mode)
	if err != nil {
		t.Fatal(err)
	}
	tr, stop := s.Pipe()
	t.Cleanup(stop)
	p := mcpclient.FromTransport("piped", tr, opts...)
	t.Cleanup(func() { p.Close() })
	return p, s, p.Connect(context.Background())
}

// serveHTTP serves server over streamable HTTP, with opts, until the test
// ends.
func serveHTTP(t *testing.T, server *mcp.Server, opts *mcp.StreamableHTTPOptions) *recording {
	return record(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts))
}

// recording is an HTTP server that keeps a copy of each request it receives
// (without its body) before its handler answers it.
type recording struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
}

// record serves h until the test ends, recording each request.
func record(t *testing.T, h http.Handler) *recording {
	s := &recording{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// seen returns the requests received so far, in order.
func (s *recording) seen() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.requests...)
}

// connectURL connects a provider to the server at url.
func connectURL(t *testing.T, url string, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	p := mcpclient.FromURL(url, opts...)
	t.Cleanup(func() { p.Close() })
	connect(t, p)
	return p
}

func connect(t *testing.T, p *mcpclient.Provider) {
	t.Helper()
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// newServer returns an empty go-sdk server.
func newServer(name string) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
}

// addTool adds to s a tool named name that takes any object, answered by h.
func addTool(s *mcp.Server, name string, h mcp.ToolHandler) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
}

// textTool adds to s a tool named name that takes any object and answers
// with the text fn gives for the request.
func textTool(s *mcp.Server, name string, fn func(*mcp.CallToolRequest) string) {
	addTool(s, name, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(fn(req)), nil
	})
}

// textResult is a tool's answer of one text.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// counter counts the requests a server receives, by method.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method]++
}

// middleware counts the requests of a go-sdk server.
func (c *counter) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c.add(method)
		return next(ctx, method, req)
	}
}

func (c *counter) get(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

// call calls the tool name through h, failing the test on an error.
func call(t *testing.T, h tool.Handler, name, args string) tool.Reply {
	t.Helper()
	res, err := h.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}
