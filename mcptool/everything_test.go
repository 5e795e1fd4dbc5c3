package mcptool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/npmtest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// everything starts server-everything, named "everything", for the test.
func everything(t *testing.T) *mcptool.Provider {
	t.Helper()
	bin := npmtest.Bin(t, "mcp-server-everything")
	p := mcptool.FromCommand(bin, []string{"stdio"}, mcptool.WithName("everything"))
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestServerEverything(t *testing.T) {
	p := everything(t)
	names := p.ToolNames()
	if !contains(names, "echo") || !contains(names, "get-tiny-image") {
		t.Fatalf("tools %v", names)
	}
	if !strings.Contains(p.Instructions(), "Everything") {
		t.Errorf("instructions %q", p.Instructions())
	}
	h := p.Handler()
	res := call(t, h, "echo", `{"message": "hello from mcpbridge"}`)
	if !strings.Contains(res.Text(), "hello from mcpbridge") {
		t.Fatalf("echo: %q", res.Text())
	}
	res = call(t, h, "mcp__everything__get-tiny-image", ``)
	var images int
	for _, part := range res.Parts {
		if img, ok := part.(tool.ImagePart); ok {
			images++
			if img.MIMEType != "image/png" || len(img.Data) == 0 {
				t.Errorf("image part %s, %d bytes", img.MIMEType, len(img.Data))
			}
		}
	}
	if images != 1 {
		t.Fatalf("get-tiny-image: %d image parts in %#v", images, res.Parts)
	}
}
