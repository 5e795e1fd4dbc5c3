//go:build ignore

// This program is the recorded run behind the eino-ext column of
// docs/frameworks.md: the demo server and a paginating server through
// eino-ext's MCP tools (github.com/cloudwego/eino-ext/components/tool/mcp,
// on mcp-go). The Go module proxy does not serve that module, so it is not
// a test of this module; to run it again:
//
//	git clone https://github.com/cloudwego/eino-ext /tmp/eino-ext
//	(cd adapters/eino && go test -c -o /tmp/demo.test .)   # the demo server
//	mkdir /tmp/run && cp adapters/eino/einoext_run.go /tmp/run/main.go && cd /tmp/run
//	go mod init run && go mod edit -replace github.com/cloudwego/eino-ext/components/tool/mcp=/tmp/eino-ext/components/tool/mcp
//	sed -i '1,2d' main.go && go mod tidy && go get github.com/bytedance/sonic@v1.15.5 && go run . /tmp/demo.test
//
// (sonic v1.15.5 because eino-ext's v1.14.1 does not build on Go 1.26.)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	einomcp "github.com/cloudwego/eino-ext/components/tool/mcp"
	"github.com/cloudwego/eino/components/tool"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx := context.Background()
	demo := os.Args[1]
	before := children()
	cli, err := client.NewStdioMCPClient(demo, []string{"MCPBRIDGE_DEMO_CHILD=stdio"})
	check(err)
	defer cli.Close()
	_, err = cli.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION}})
	check(err)
	tools, err := einomcp.GetTools(ctx, &einomcp.Config{Cli: cli})
	check(err)
	byName := map[string]tool.InvokableTool{}
	for _, t := range tools {
		info, _ := t.Info(ctx)
		byName[info.Name] = t.(tool.InvokableTool)
		if info.Name == "note_stats" {
			js, _ := info.ParamsOneOf.ToJSONSchema()
			b, _ := json.Marshal(js)
			fmt.Printf("schema of note_stats: %s\n", b)
		}
	}
	fmt.Printf("demo: %d tools\n", len(tools))

	out, err := byName["get_note"].InvokableRun(ctx, `{"id":99}`)
	fmt.Printf("get_note 99 (isError): result %q, error: %v\n", out, err)
	out, err = byName["color_swatch"].InvokableRun(ctx, `{"color":"teal"}`)
	fmt.Printf("color_swatch (image): %d characters of text, error %v: %.160s...\n", len(out), err, out)

	for _, pid := range children() {
		if !strings.Contains(" "+fmt.Sprint(before)+" ", " "+strconv.Itoa(pid)+" ") {
			syscall.Kill(pid, syscall.SIGKILL)
			fmt.Printf("killed the server, pid %d\n", pid)
		}
	}
	// mcp-go sets no timeout of its own: give the call 10 seconds.
	bounded, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	out, err = byName["list_notes"].InvokableRun(bounded, `{}`)
	fmt.Printf("list_notes after the server died: after %.0f s, result %q, error: %v\n", time.Since(start).Seconds(), out, err)

	// Three tools, one to a page; one with a description of 100000
	// characters.
	server := mcp.NewServer(&mcp.Implementation{Name: "pages", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	for i, desc := range []string{"first", "second", strings.Repeat("long ", 20000)} {
		mcp.AddTool(server, &mcp.Tool{Name: fmt.Sprintf("tool_%d", i+1), Description: desc},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
	}
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()
	hc, err := client.NewStreamableHttpClient(srv.URL)
	check(err)
	defer hc.Close()
	check(hc.Start(ctx))
	_, err = hc.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{ProtocolVersion: mcpgo.LATEST_PROTOCOL_VERSION}})
	check(err)
	paged, err := einomcp.GetTools(ctx, &einomcp.Config{Cli: hc})
	check(err)
	fmt.Printf("pages: %d tools listed of 3 on 3 pages\n", len(paged))
	for _, t := range paged {
		info, _ := t.Info(ctx)
		fmt.Printf("  %s: description of %d characters\n", info.Name, len(info.Desc))
	}
}

// children returns the pids of this process's children.
func children() []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, f := range stats {
		data, _ := os.ReadFile(f)
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(data[i+1:]))
		if len(fs) > 1 && fs[1] == strconv.Itoa(os.Getpid()) && fs[0] != "Z" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, pid)
		}
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
