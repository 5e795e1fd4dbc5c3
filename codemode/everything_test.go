package codemode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// The reference server of the MCP project, as a script reaches it: text,
// structured content, an image described, a tool's isError thrown and
// caught, calls in parallel.
func TestScriptOnServerEverything(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	p := mcpclient.FromCommand(bin, []string{"stdio"}, mcpclient.WithName("everything"))
	defer p.Close()
	ctx := context.Background()
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime(t, set, codemode.Config{})
	if d := rt.Declarations("everything.get_structured_content"); !strings.Contains(d, "get_structured_content(args: {") || !strings.Contains(d, "temperature: number;") {
		t.Fatalf("declaration:\n%s", d)
	}
	out := run(t, rt, `
		const e = tools.everything;
		const [echo, sum, weather, image] = await Promise.all([
			e.echo({message: "hi"}), e.get_sum({a: 2, b: 3}), e.get_structured_content({location: "Chicago"}), e.get_tiny_image()]);
		let failed;
		try { await e.gzip_file_as_resource({name: "x.gz", data: "not a url"}) } catch (err) { failed = err.name + " " + err.tool + " " + /Invalid URL/.test(err.message) }
		const echoes = await Promise.all(["a", "b", "c", "d", "e"].map(m => e.echo({message: m})));
		return {echo, sum, temperature: typeof weather.temperature, image: image.filter(p => typeof p !== "string"), failed, echoes};
	`)
	var v struct {
		Echo, Sum, Temperature, Failed string
		Image                          []map[string]any
		Echoes                         []string
	}
	if err := json.Unmarshal(out.Value, &v); err != nil {
		t.Fatalf("%v: %s", err, out.Value)
	}
	if v.Echo != "Echo: hi" || !strings.Contains(v.Sum, "5") || v.Temperature != "number" {
		t.Fatalf("text and structured results: %s", out.Value)
	}
	if len(v.Image) != 1 || v.Image[0]["type"] != "image" || v.Image[0]["mimeType"] != "image/png" || v.Image[0]["data"] != nil {
		t.Fatalf("image: %s", out.Value)
	}
	if v.Failed != "ToolError everything.gzip_file_as_resource true" {
		t.Fatalf("isError: %q", v.Failed)
	}
	if strings.Join(v.Echoes, ",") != "Echo: a,Echo: b,Echo: c,Echo: d,Echo: e" {
		t.Fatalf("parallel calls: %v", v.Echoes)
	}
}
