package mcpclient_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A call's arguments reach the server as the caller wrote them, whichever
// way they are encoded (by the call itself past go-sdk, rawcall.go; by
// go-sdk over legacy SSE): on every transport, raw or decoded,
// with the call's content recorded or not, at sizes on both sides of
// where the way changes, with white space and escapes in them.
func TestArgumentsArriveAsWritten(t *testing.T) {
	echo := func() *mcp.Server {
		s := newServer("echo")
		textTool(s, "echo", func(req *mcp.CallToolRequest) string { return string(req.Params.Arguments) })
		return s
	}
	sse := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return echo() }, nil)
	sseSrv := record(t, sse)
	stateless, _ := rawServer(t, echo(), nil)
	inProc := mcpclient.FromServer("echo", echo())
	t.Cleanup(func() { inProc.Close() })
	connect(t, inProc)
	overStdio := raw(t, "") // its echo answers the text alone
	connect(t, overStdio)
	providers := []struct {
		name string
		p    *mcpclient.Provider
	}{
		{"2026-07-28 over HTTP", connectURL(t, stateless.URL)},
		{"2025-11-25 over HTTP", connectURL(t, serveHTTP(t, echo(), nil).URL)},
		{"in process", inProc},
		{"stdio", overStdio},
		{"legacy SSE", connectURL(t, sseSrv.URL, mcpclient.WithTransport(mcpclient.SSE))},
		{"content recorded", connectURL(t, stateless.URL, mcpclient.WithCallContent())},
	}
	for _, size := range []int{0, 1000, 1023, 1024, 1025, 64 << 10} {
		// {"n": [1, 2], "q": ..., "text": "..."} with spaces, an escaped
		// quote and a non-ASCII letter, padded to size bytes.
		head := `{ "n" : [1, 2], "q": "\"é\"", "text": "`
		pad := max(0, size-len(head)-2)
		args := json.RawMessage(head + strings.Repeat("x", pad) + `"}`)
		var want map[string]any
		if err := json.Unmarshal(args, &want); err != nil {
			t.Fatal(err)
		}
		for _, tc := range providers {
			name := fmt.Sprintf("%s, %d bytes", tc.name, len(args))
			raw, res, err := tc.p.CallToolRaw(t.Context(), "echo", args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res == nil {
				res = new(mcp.CallToolResult)
				if err := json.Unmarshal(raw, res); err != nil {
					t.Fatalf("%s: %s: %v", name, raw, err)
				}
			}
			decoded, err := tc.p.CallToolResult(t.Context(), "echo", args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for way, r := range map[string]*mcp.CallToolResult{"raw": res, "decoded": decoded} {
				text, _ := r.Content[0].(*mcp.TextContent)
				if len(r.Content) != 1 || text == nil {
					t.Fatalf("%s, %s: %v", name, way, r.Content)
				}
				got, wanted := text.Text, want["text"].(string)
				if tc.p != overStdio {
					var all any
					if err := json.Unmarshal([]byte(got), &all); err != nil {
						t.Fatalf("%s, %s: the server received no JSON: %v", name, way, err)
					}
					a, _ := json.Marshal(all)
					b, _ := json.Marshal(want)
					got, wanted = string(a), string(b)
				}
				if got != wanted {
					t.Errorf("%s, %s: the server received other arguments than were sent", name, way)
				}
			}
		}
	}
}
