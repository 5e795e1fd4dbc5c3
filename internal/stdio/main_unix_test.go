//go:build unix

package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"

	"testing"
)

// childEnv selects what the re-executed test binary does instead of
// running tests. It has to be passed through Command.Env: the parent's
// environment is not inherited, which is the point of the package.
const childEnv = "STDIO_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	hostile.ServeIfChild()
	goleak.VerifyTestMain(m)
}

func runChild(mode string) int {
	switch mode {
	case "fake":
		return fakeServer(false)
	case "sdk":
		return sdkServer()
	case "slow-sdk":
		// A server slow to start, as an npx package on a loaded machine:
		// it reads nothing before this.
		time.Sleep(500 * time.Millisecond)
		return sdkServer()
	case "silent":
		return fakeServer(true)
	case "env":
		wd, _ := os.Getwd()
		notify("env", map[string]any{"env": os.Environ(), "cwd": wd})
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "stderr":
		fmt.Fprintln(os.Stderr, "stderr-marker from the server")
		notify("ready", nil)
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "dying":
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprint(os.Stderr, "fatal: API_KEY is not set\x1b[0m")
		return 1
	case "http-only":
		// Serves MCP over HTTP, as a server started without its --stdio.
		writeLine([]byte("MCP server listening on http://0.0.0.0:3001/mcp?key=k.\n"))
		time.Sleep(time.Hour)
		return 0
	case "http-stderr":
		fmt.Fprintln(os.Stderr, "Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)")
		time.Sleep(time.Hour)
		return 0
	case "callback":
		// A stdio server that also listens for an OAuth callback, and
		// says so on stderr before it answers.
		fmt.Fprintln(os.Stderr, "OAuth callback listening on http://127.0.0.1:8080/callback")
		return fakeServer(false)
	case "stubborn":
		// Ignores both polite requests to stop: stdin EOF and SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		notify("ready", nil)
		time.Sleep(time.Hour)
		return 0
	case "group":
		// Leaves a grandchild that ignores SIGTERM, then exits on stdin EOF.
		notify("grandchild", map[string]any{"pid": spawnGrandchild(true, false)})
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "orphan":
		// Exits by itself, leaving a grandchild in its group that holds
		// stdout open.
		notify("grandchild", map[string]any{"pid": spawnGrandchild(false, false)})
		return 3
	case "setsid":
		// Exits by itself, leaving a grandchild outside its group (which
		// no group signal reaches) that holds stdout open.
		notify("grandchild", map[string]any{"pid": spawnGrandchild(false, true)})
		return 4
	case "grandchild":
		if os.Getenv("STDIO_TEST_IGNORE_TERM") == "1" {
			signal.Ignore(syscall.SIGTERM)
		}
		fmt.Fprintln(os.Stderr, "ready")
		time.Sleep(time.Hour)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
	return 2
}

// spawnGrandchild starts the test binary as a sleeping grandchild sharing
// our stdout, and returns its pid once it is ready (signal disposition set).
func spawnGrandchild(ignoreTerm, setsid bool) int {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=grandchild")
	if ignoreTerm {
		cmd.Env = append(cmd.Env, "STDIO_TEST_IGNORE_TERM=1")
	}
	cmd.Stdout = os.Stdout
	if setsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	ready, err := cmd.StderrPipe()
	if err != nil {
		panic(err)
	}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	if _, err := bufio.NewReader(ready).ReadString('\n'); err != nil {
		panic(err)
	}
	return cmd.Process.Pid
}

var stdoutMu = make(chan struct{}, 1)

// send writes one line to stdout in a single write, as a real server does.
func send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	writeLine(append(b, '\n'))
}

func writeLine(b []byte) {
	stdoutMu <- struct{}{}
	defer func() { <-stdoutMu }()
	if _, err := os.Stdout.Write(b); err != nil {
		os.Exit(5)
	}
}

func notify(method string, params any) {
	send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// fakeServer is a hand-written JSON-RPC server: it echoes requests, answers
// initialize and tools/list like an MCP server of protocol 2025-06-18, never
// answers server/discover (until "release"), nor with silent a ping, and on
// request misbehaves in the ways the tests need.
func fakeServer(silent bool) int {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var held json.RawMessage      // id of the unanswered server/discover
	var holding []json.RawMessage // ids of the calls to hold
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		var p struct {
			Size   int  `json:"size"`
			IDLast bool `json:"idLast"`
			Code   int  `json:"code"`
		}
		_ = json.Unmarshal(m.Params, &p)
		reply := func(result any) {
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		}
		switch m.Method {
		case "":
			// A response to one of our requests: report it, so a test
			// can see what the client wrote back.
			notify("gotResponse", json.RawMessage(line))
		case methodDiscover:
			held = m.ID
		case "ping":
			if !silent {
				reply(map[string]any{})
			}
		case "release":
			if held != nil {
				send(map[string]any{"jsonrpc": "2.0", "id": held, "result": map[string]any{"supportedVersions": []string{"2026-07-28"}}})
			}
			for _, id := range holding {
				send(map[string]any{"jsonrpc": "2.0", "id": id, "result": "held"})
			}
			holding = nil
			reply("released")
		case "initialize":
			reply(map[string]any{
				"protocolVersion": "2025-06-18",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "legacy", "version": "1.0"},
			})
		case "tools/list":
			reply(map[string]any{"tools": []any{map[string]any{
				"name": "legacy_tool", "inputSchema": map[string]any{"type": "object"},
			}}})
		case "big":
			pad := strings.Repeat("x", p.Size)
			if p.IDLast {
				// As the TypeScript SDK orders it, with a decoy nested id.
				writeLine(fmt.Appendf(nil, `{"result":{"id":"decoy","data":"%s \"id\":7"},"jsonrpc":"2.0","id":%s}`+"\n", pad, m.ID))
			} else {
				writeLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"data":"%s"}}`+"\n", m.ID, pad))
			}
		case "bignote":
			writeLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"%s"}}`+"\n", strings.Repeat("y", p.Size)))
			reply("after bignote")
		case "bigrequest":
			writeLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{"data":"%s"}}`+"\n", strings.Repeat("z", p.Size)))
			reply("after bigrequest")
		case "undecodable":
			// Nested deeper than any decoder takes, then cut short.
			deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
			writeLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, deep))
			writeLine(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"content":[`+"\n", m.ID))
		case "junk":
			writeLine([]byte("Starting server v1.2.3...\n\n   \n{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":1}\n[]\n"))
			reply("after junk")
		case "batch":
			writeLine(fmt.Appendf(nil, `[{"jsonrpc":"2.0","method":"one"},{"jsonrpc":"2.0","id":%s,"result":"two"}]`+"\n", m.ID))
		case "batch-notes":
			// Two notifications and the answer in one line, as a batch.
			writeLine(fmt.Appendf(nil, `[{"jsonrpc":"2.0","method":"one"},{"jsonrpc":"2.0","method":"two"},{"jsonrpc":"2.0","id":%s,"result":"three"}]`+"\n", m.ID))
		case "then-note":
			reply("noted next")
			notify("notes/after", nil)
		case "hold":
			// Answered at the next release.
			holding = append(holding, m.ID)
		case "exit":
			os.Exit(p.Code)
		default:
			if m.ID == nil {
				continue // a notification
			}
			reply(map[string]any{"method": m.Method, "params": m.Params})
		}
	}
}

// sdkServer is a real go-sdk server over stdio.
func sdkServer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-child", Version: "1.0"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes"},
		func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "sdk server:", err)
		return 1
	}
	return 0
}
