package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/npmtest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A server with resources offers a way to read them beside its tools, and
// the links its results hold name the server, so a model can follow them.
func TestOfferReadsResources(t *testing.T) {
	ctx := context.Background()
	s := newServer("files")
	s.AddTool(&mcp.Tool{Name: "find", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///a.md", Name: "a", MIMEType: "text/markdown"}}}, nil
		})
	pngData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	for uri, c := range map[string]*mcp.ResourceContents{
		"file:///a.md":     {MIMEType: "text/markdown", Text: "# A"},
		"file:///a.json":   {MIMEType: "application/json", Blob: []byte(`{"a":1}`)},
		"file:///a.png":    {MIMEType: "image/png", Blob: pngData},
		"file:///a.bin":    {MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}},
		"file:///fake.png": {MIMEType: "image/png", Blob: []byte("not a png")},
	} {
		c.URI = uri
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	}
	p, _ := inProcess(t, s)
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := call(t, set.Handler, "find", `{}`).Text(); got != `[resource link: file:///a.md (text/markdown) "a", server "notes"]` {
		t.Fatalf("the link: %s", got)
	}
	read := set.Resources["notes"]
	if len(set.Resources) != 1 || read == nil {
		t.Fatalf("resources %v; want the provider's, by its name", set.Resources)
	}
	for uri, want := range map[string]string{
		"file:///a.md":     "# A",
		"file:///a.json":   `{"a":1}`,
		"file:///a.bin":    "[resource content (application/octet-stream) not shown to the model]",
		"file:///fake.png": "[image content (image/png) not shown to the model]",
	} {
		if res, err := read(ctx, uri); err != nil || res.Text() != want {
			t.Errorf("%s: %q, %v; want %q", uri, res.Text(), err, want)
		}
	}
	if res, err := read(ctx, "file:///a.png"); err != nil || len(res.Parts) != 1 || res.Parts[0].(tool.ImagePart).MIMEType != "image/png" {
		t.Fatalf("the image: %#v, %v", res.Parts, err)
	}
	if _, err := read(ctx, "file:///none"); err == nil || !strings.Contains(err.Error(), "file:///none") {
		t.Fatalf("a missing resource: %v", err)
	}

	// A server without resources offers none to read.
	p, _ = inProcess(t, outputServer("", ""))
	if set, err := p.Offer(ctx); err != nil || set.Resources != nil {
		t.Fatalf("no resources capability: %v, %v", set.Resources, err)
	}
	// The demo has resources.
	p, _ = inProcess(t, demo.New())
	if set, err := p.Offer(ctx); err != nil || set.Resources["notes"] == nil {
		t.Fatalf("the demo: %v, %v", set.Resources, err)
	}
}

// server-everything's links and embedded resources, as a model reads them:
// each link names its server and reads through the offered Set, and a text
// blob, embedded or read, is text.
func TestServerEverythingResources(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	p := mcptool.FromCommand(bin, []string{"stdio"}, mcptool.WithName("everything"))
	ctx := context.Background()
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links := call(t, set.Handler, "get-resource-links", `{"count": 2}`).Text()
	for _, want := range []string{
		`[resource link: demo://resource/dynamic/blob/1 (text/plain) \"Blob Resource 1\", server \"everything\"]`,
		`[resource link: demo://resource/dynamic/text/2 (text/plain) \"Text Resource 2\", server \"everything\"]`,
	} {
		if !strings.Contains(links, want) {
			t.Fatalf("links %s\nlack %s", links, want)
		}
	}
	read := set.Resources["everything"]
	if read == nil {
		t.Fatalf("no resources to read: %v", set.Resources)
	}
	if res, err := read(ctx, "demo://resource/dynamic/blob/1"); err != nil || !strings.HasPrefix(res.Text(), "Resource 1: This is a base64 blob") {
		t.Fatalf("the blob read: %q, %v", res.Text(), err)
	}
	ref := call(t, set.Handler, "get-resource-reference", `{"resourceType": "Blob", "resourceId": 3}`).Text()
	if !strings.Contains(ref, "Resource 3: This is a base64 blob") {
		t.Fatalf("the embedded blob is not text: %s", ref)
	}
}
