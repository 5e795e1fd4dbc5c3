package stdio

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

func TestQuotable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Starting server on port 3000...\r\n", "Starting server on port 3000..."},
		{"\x1b]0;pwned\x07title\x1b[2Jclear\x1b]52;c;c2VjcmV0\x07", "titleclear"},
		{"a\tb\u202eevil\u200bzero\u00a0nbsp", "a bevilzero nbsp"},
		{"bad \xff\xfe utf-8", "bad \ufffd\ufffd utf-8"},
		{strings.Repeat("é", 200), strings.Repeat("é", maxJunkQuote/2) + "…"},
		{"x" + strings.Repeat("é", 200), "x" + strings.Repeat("é", maxJunkQuote/2-1) + "…"},
		{strings.Repeat("\x1b", 10000) + "x", "…"},
	} {
		if got := quotable([]byte(tc.in), maxJunkQuote, redact.Secrets{}); got != tc.want {
			t.Errorf("quotable(%.40q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestJunk(t *testing.T) {
	var j junk
	for _, l := range []string{"one", "two", "three", "four"} {
		if flood, _ := j.add([]byte(l)); flood {
			t.Fatal("a flood after four lines")
		}
	}
	if got, want := strings.Join(j.last(), ","), "two,three,four"; got != want {
		t.Errorf("last = %q, want %q", got, want)
	}
	j.spoke()
	if got := j.last(); len(got) > 0 {
		t.Errorf("last after a message = %q, want none", got)
	}
	// Once the server has spoken, no amount of junk is a flood.
	for range maxJunkLines + 1 {
		if flood, _ := j.add([]byte("log")); flood {
			t.Fatal("a flood after the server spoke")
		}
	}

	var before junk
	flood := false
	for i := 0; i <= maxJunkLines && !flood; i++ {
		flood, _ = before.add([]byte("log"))
	}
	if !flood {
		t.Errorf("no flood after %d lines and no message", maxJunkLines+1)
	}
	var big junk
	if flood, _ := big.add(make([]byte, maxJunkBytes+1)); !flood {
		t.Errorf("no flood after %d bytes and no message", maxJunkBytes+1)
	}
}

// A line saying the server serves HTTP at a URL gives the URL to reach it
// at, without what may be a secret; other lines, URLs among them, do not.
func TestListenURL(t *testing.T) {
	for line, want := range map[string]string{
		"MCP server listening on http://localhost:3001/mcp":               "http://localhost:3001/mcp",
		"Server running at https://u:p@example.com:8443/mcp?key=sk-1#x.":  "https://example.com:8443/mcp",
		"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C)": "http://127.0.0.1:8000",
		"listening on http://[::]:3000/sse":                               "http://127.0.0.1:3000/sse",
		"Starting server v1.2.3...":                                       "",
		"See https://example.com/docs for help":                           "",
		"Secure MCP Filesystem Server running on stdio":                   "",
		"listening on ftp://example.com/":                                 "",
	} {
		if got := listenURL(line); got != want {
			t.Errorf("listenURL(%q) = %q, want %q", line, got, want)
		}
	}
}
