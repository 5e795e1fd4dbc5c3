package mcpclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// rootsServer returns a server whose tool roots lists the client's roots
// (as an input request, protocol 2026-07-28), and which reports each
// notifications/roots/list_changed on changed.
func rootsServer(changed chan<- struct{}) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1"}, &mcp.ServerOptions{
		RootsListChangedHandler: func(context.Context, *mcp.RootsListChangedRequest) { changed <- struct{}{} },
	})
	addTool(server, "roots", func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}}, nil
		}
		var lines []string
		for _, r := range res.Roots {
			lines = append(lines, r.Name+" "+r.URI)
		}
		return textResult(strings.Join(lines, "\n")), nil
	})
	return server
}

func TestRoots(t *testing.T) {
	changed := make(chan struct{}, 4)
	work, err := mcpclient.RootOf(t.TempDir())
	if err != nil || !strings.HasPrefix(work.URI, "file:///") {
		t.Fatalf("RootOf: %+v, %v", work, err)
	}
	p, _ := inProcess(t, rootsServer(changed), mcpclient.WithRoots(work))
	ctx := context.Background()
	if got, err := callText(ctx, p, "roots", nil); err != nil || got != work.Name+" "+work.URI {
		t.Fatalf("roots: %q, %v", got, err)
	}
	// A change is told to the server, which asks again.
	other := mcpclient.Root{URI: "file:///srv/data", Name: "data"}
	if err := p.SetRoots(other); err != nil {
		t.Fatal(err)
	}
	<-changed
	if got, err := callText(ctx, p, "roots", nil); err != nil || got != "data file:///srv/data" {
		t.Fatalf("roots after the change: %q, %v", got, err)
	}
	if got := p.Roots(); len(got) != 1 || got[0] != other {
		t.Fatalf("Roots: %v", got)
	}
	if err := p.SetRoots(mcpclient.Root{URI: "https://example.com"}); err == nil || !strings.Contains(err.Error(), "not a file:// URI") {
		t.Fatalf("a root not a file URI: %v", err)
	}
}

// Without WithRoots the provider has no roots and cannot change them;
// a root that is not a file:// URI is refused at Connect.
func TestRootsOff(t *testing.T) {
	p, _ := inProcess(t, rootsServer(make(chan struct{}, 1)))
	if got, err := callText(context.Background(), p, "roots", nil); err != nil || got != "" {
		t.Fatalf("roots without WithRoots: %q, %v", got, err)
	}
	var ce *mcpclient.ConfigError
	if err := p.SetRoots(); !errors.As(err, &ce) {
		t.Fatalf("SetRoots without WithRoots: %v", err)
	}
	bad := mcpclient.FromServer("bad", rootsServer(nil), mcpclient.WithRoots(mcpclient.Root{URI: "/tmp"}))
	if err := bad.Connect(context.Background()); !errors.As(err, &ce) || ce.Option != "roots" {
		t.Fatalf("Connect with a bad root: %v", err)
	}
}
