package skills_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/skills"
)

// A fakeServer is a go-sdk server that declares the Skills extension, answers
// skills/list from pages and skills/get from entries, serves files as
// resources, and counts what it is asked.
type fakeServer struct {
	mu sync.Mutex
	// pages maps a cursor ("" for the first page) to its page.
	pages map[string]page
	// entries answers skills/get by URI.
	entries map[string]any
	// files is what resources/read serves, by URI.
	files map[string]string
	// calls counts requests by method; reads lists resources/read URIs.
	calls map[string]int
	reads []string
	// undeclared leaves the extension out of the capabilities.
	undeclared bool
}

type page struct {
	skills []any
	next   string
}

type listParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listResult struct {
	mcp.ResultBase
	Skills     []any  `json:"skills"`
	NextCursor string `json:"nextCursor,omitempty"`
}

type getParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type getResult struct {
	mcp.ResultBase
	Skill any `json:"skill"`
}

// set replaces what the server serves, under its lock.
func (f *fakeServer) set(fn func(f *fakeServer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeServer) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[method]
}

func (f *fakeServer) readURIs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reads...)
}

func (f *fakeServer) server() *mcp.Server {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	if !f.undeclared {
		caps.AddExtension(skills.ExtensionID, nil)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake-skills", Version: "1.0.0"}, &mcp.ServerOptions{Capabilities: caps})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			f.mu.Lock()
			if f.calls == nil {
				f.calls = map[string]int{}
			}
			f.calls[method]++
			if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok {
				f.reads = append(f.reads, p.URI)
			}
			f.mu.Unlock()
			return next(ctx, method, req)
		}
	})
	mcp.AddReceivingCustomMethod(srv, "skills/list", func(_ context.Context, _ *mcp.ServerSession, p *listParams) (*listResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		pg, ok := f.pages[p.Cursor]
		if !ok {
			return nil, &jsonrpc.Error{Code: -32602, Message: "unknown cursor"}
		}
		return &listResult{Skills: append([]any{}, pg.skills...), NextCursor: pg.next}, nil
	})
	mcp.AddReceivingCustomMethod(srv, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *getParams) (*getResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		e, ok := f.entries[p.URI]
		if !ok {
			return nil, &jsonrpc.Error{Code: -32602, Message: "no skill is served at " + p.URI}
		}
		return &getResult{Skill: e}, nil
	})
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://{+path}", Name: "skill files"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			uri := req.Params.URI
			text, ok := f.files[uri]
			if !ok {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
		})
	return srv
}

// connect serves f in process and returns a connected provider for it.
func connect(t testing.TB, f *fakeServer, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	p, stop, err := serve(context.Background(), f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return p
}

// serve serves f in process and connects a provider to it; stop closes
// both ends. A real server is mcpclient.FromURL or mcpclient.FromCommand.
func serve(ctx context.Context, f *fakeServer, opts ...mcpclient.Option) (p *mcpclient.Provider, stop func(), err error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server().Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	p = mcpclient.FromTransport("fake", ct, append([]mcpclient.Option{mcpclient.WithoutDiscovery()}, opts...)...)
	if err := p.Connect(ctx); err != nil {
		ss.Close()
		return nil, nil, err
	}
	return p, func() { p.Close(); ss.Close() }, nil
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileEntry lists a file as content truly is.
func fileEntry(uri, content string) map[string]any {
	return map[string]any{"uri": uri, "digest": sha(content), "size": len(content)}
}

// skillMD is a SKILL.md with the given frontmatter lines and body.
func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n\n" + body
}

// entry is a skills/list entry for the skill at path whose SKILL.md is
// content; extra are its other files, URI and content in turn.
func entry(path, description, content string, extra ...string) map[string]any {
	uri := "skill://" + path + "/SKILL.md"
	files := []any{fileEntry(uri, content)}
	for i := 0; i+1 < len(extra); i += 2 {
		files = append(files, fileEntry(extra[i], extra[i+1]))
	}
	name := path[strings.LastIndex(path, "/")+1:]
	return map[string]any{
		"uri":         uri,
		"frontmatter": map[string]any{"name": name, "description": description},
		"resources":   files,
	}
}
