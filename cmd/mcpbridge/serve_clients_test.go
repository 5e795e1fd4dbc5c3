package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// serveNPM starts mcpbridge serve over HTTP in front of two servers from
// npm, server-everything and server-memory (its graph in a file of the
// test's own), and returns the gateway's MCP endpoint.
func serveNPM(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": npmtest.Bin(t, "mcp-server-everything"), "args": []string{"stdio"}, "required": true},
		"memory": map[string]any{"command": npmtest.Bin(t, "mcp-server-memory"), "required": true,
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
	}})
	url, _, lines := startServe(t, "--config", writeConfig(t, dir, "mcp.json", string(config)))
	go func() {
		for range lines { // the request log, not needed here
		}
	}()
	return url
}

// The official clients of other languages list and call the tools of both
// servers through the gateway, as they would any MCP server, as does
// go-sdk's client of either protocol generation. Each client remembers an
// entity of its own (the memory server is shared) and finds it again.
func TestServeToRealClients(t *testing.T) {
	url := serveNPM(t)
	node := npmtest.Bin(t, "node")
	const remembered = "reached memory through mcpbridge serve"
	entities := func(who string) string {
		return fmt.Sprintf(`[{"name":%q,"entityType":"client","observations":[%q]}]`, who, remembered)
	}
	check := func(t *testing.T, tools []string, results []mcp.CallToolResult, greeting string) {
		t.Helper()
		if !slices.Contains(tools, "everything_echo") || !slices.Contains(tools, "memory_search_nodes") {
			t.Errorf("tools listed: %v", tools)
		}
		if texts := resultTexts(t, results); texts[0] != "Echo: "+greeting || !strings.Contains(texts[2], remembered) {
			t.Errorf("results %q", texts)
		}
	}

	t.Run("typescript-sdk", func(t *testing.T) {
		out := runClient(t, "", []string{"NODE_PATH=" + filepath.Dir(filepath.Dir(node))}, node, filepath.Join("testdata", "tsclient.mjs"), url,
			"everything_echo", `{"message":"hello from TypeScript"}`,
			"memory_create_entities", `{"entities":`+entities("ts-sdk")+`}`,
			"memory_search_nodes", `{"query":"ts-sdk"}`)
		var got struct {
			Protocol string
			Tools    []string
			Results  []mcp.CallToolResult
		}
		unmarshal(t, out, &got)
		if got.Protocol != "2025-11-25" { // the SDK's latest
			t.Errorf("protocol %q", got.Protocol)
		}
		check(t, got.Tools, got.Results, "hello from TypeScript")
	})

	t.Run("inspector-cli", func(t *testing.T) {
		// The CLI mode's own program: mcp-inspector-cli --cli only starts
		// it with node, seconds later. It finds its package.json by a path
		// relative to the working directory, so it runs in its own.
		cli, err := filepath.EvalSymlinks(npmtest.Bin(t, "mcp-inspector-cli"))
		if err != nil {
			t.Fatal(err)
		}
		inspector := func(v any, args ...string) {
			unmarshal(t, runClient(t, filepath.Dir(cli), nil, node, append([]string{"index.js", url, "--method"}, args...)...), v)
		}
		var list mcp.ListToolsResult
		inspector(&list, "tools/list")
		var tools []string
		for _, tl := range list.Tools {
			tools = append(tools, tl.Name)
		}
		results := make([]mcp.CallToolResult, 3)
		inspector(&results[0], "tools/call", "--tool-name", "everything_echo", "--tool-arg", "message=hello from the Inspector")
		inspector(&results[1], "tools/call", "--tool-name", "memory_create_entities", "--tool-arg", "entities="+entities("inspector"))
		inspector(&results[2], "tools/call", "--tool-name", "memory_search_nodes", "--tool-arg", "query=inspector")
		check(t, tools, results, "hello from the Inspector")
	})

	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk-"+v, func(t *testing.T) {
			cs, _ := connectServe(t, url, v)
			var tools []string
			for tl, err := range cs.Tools(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, tl.Name)
			}
			var results []mcp.CallToolResult
			for _, c := range []struct{ name, args string }{
				{"everything_echo", `{"message":"hello from Go"}`},
				{"memory_create_entities", `{"entities":` + entities("go-sdk "+v) + `}`},
				{"memory_search_nodes", fmt.Sprintf(`{"query":%q}`, "go-sdk "+v)},
			} {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.name, Arguments: json.RawMessage(c.args)})
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				results = append(results, *res)
			}
			check(t, tools, results, "hello from Go")
		})
	}
}

// runClient runs a client program with args in dir, its environment
// extended by env, and returns its stdout, failing the test with its
// stderr if it fails.
func runClient(t *testing.T, dir string, env []string, program string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", program, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// unmarshal decodes a client's JSON output into v, failing the test if it
// cannot.
func unmarshal(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, out)
	}
}

// resultTexts returns the text of each result, failing the test on a
// result marked isError or one that is not a single text.
func resultTexts(t *testing.T, results []mcp.CallToolResult) []string {
	t.Helper()
	var texts []string
	for i, r := range results {
		if r.IsError || len(r.Content) != 1 {
			t.Fatalf("result %d: isError %v, %d parts", i, r.IsError, len(r.Content))
		}
		tc, ok := r.Content[0].(*mcp.TextContent)
		if !ok {
			t.Fatalf("result %d: %T, want text", i, r.Content[0])
		}
		texts = append(texts, tc.Text)
	}
	return texts
}
