package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// The test binary is the echo server too, as the program is.
func TestMain(m *testing.M) {
	if kind := os.Getenv(serverEnv); kind != "" {
		if err := serve(kind); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// The server answers each method the clients send, a notification with
// nothing, and the text of a call as the client wrote it.
func TestEchoAnswers(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a\u00e9\"b"}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\u00e9\"b"}]}}`},
		{`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":"2026-07-28"}}`,
			`{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
			`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"server/discover"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found"}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``},
		{`{"jsonrpc":"2.0","id":4,"result":{}}`, ``},
	} {
		out, ok := answer(nil, []byte(tc.in))
		if string(out) != tc.out || ok != (tc.out != "") {
			t.Errorf("%s: answered %s, %v; want %s", tc.in, out, ok, tc.out)
		}
	}
}

// Every client calls the echo tool, one after another and concurrently,
// over stdio and HTTP (either answer), with texts on both sides of the
// pipes' and the readers' buffers.
func TestEveryClientEchoes(t *testing.T) {
	node := npmtest.Bin(t, "node")
	npm := filepath.Dir(filepath.Dir(filepath.Dir(node)))
	sdkDir := filepath.Join(npm, "node_modules", "@modelcontextprotocol", "sdk")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, transport := range []string{"stdio", "http", "http-json"} {
		s := server{stdio: transport == "stdio", self: self, answers: transport}
		if !s.stdio {
			url, stop, err := startHTTP(self, transport)
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			s.url = url
		}
		for _, size := range []int{1, 70000} {
			o := options{size: size, callers: 4}
			clients, err := allClients(ctx, o, s, node, sdkDir, t.TempDir())
			if err == nil {
				for _, c := range clients {
					if _, err = c.sequential(ctx, 3); err == nil {
						_, err = c.concurrent(ctx, o.callers, 8)
					}
					if err != nil {
						err = fmt.Errorf("%s: %w", c.name, err)
						break
					}
				}
			}
			for _, c := range clients {
				c.close()
			}
			if err != nil {
				t.Fatalf("%s, %d bytes: %v", transport, size, err)
			}
			if len(clients) != callToolAt+1 {
				t.Fatalf("%d clients", len(clients))
			}
		}
	}
}

func TestTextIsTheScripts(t *testing.T) {
	if !strings.Contains(string(tsScript), `'abcdefghijklmnopqrstuvwxyz0123456789'`) || textOf(40) != "abcdefghijklmnopqrstuvwxyz0123456789abcd" {
		t.Fatal("the Go clients and tsclient.mjs send different texts")
	}
}
