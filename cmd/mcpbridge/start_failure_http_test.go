package main_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server at a URL that nobody listens at is said in one sentence: where
// nothing answers. The chain of what failed in between is for -v.
func TestConnectionRefusedInOneSentence(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r := mcpbridge(t, "", "", nil, "tools", "--url", "http://"+addr+"/mcp")
	expect(t, r, 3)
	if want := `mcpbridge tools: server "127.0.0.1" did not start: nothing listens at ` + addr + " (connection refused)\n"; r.err != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.err, want)
	}
	r = mcpbridge(t, "", "", nil, "tools", "--url", "http://"+addr+"/mcp", "-v")
	expect(t, r, 3, "nothing listens at "+addr+" (connection refused)\n", `  detail: server "127.0.0.1": `, "connect: connection refused")
}

// A server that asks for authorization is said to take a token, and where
// to give it: --header for --url, the config's "headers" for its server;
// given one, that it was refused.
func TestUnauthorizedHintsAtAToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "a bearer token is required", http.StatusUnauthorized)
	}))
	defer srv.Close()
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "tools", "--url", srv.URL+"/mcp")
	expect(t, r, 3, `  hint: if it takes a token, give it with --header "Authorization: Bearer TOKEN"`+"\n")
	r = mcpbridge(t, dir, "", nil, "tools", "--url", srv.URL+"/mcp", "--header", "Authorization: Bearer sk-WRONG")
	expect(t, r, 3, "  hint: it refused the Authorization header given\n")
	if strings.Contains(r.err, "WRONG") {
		t.Errorf("the token is printed:\n%s", r.err)
	}
	cfg := writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"gw": {"url": %q}, "other": {"url": %q}}}`, srv.URL+"/mcp", srv.URL+"/other"))
	r = mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, `  hint: if it takes a token, give it with "headers": {"Authorization": "Bearer TOKEN"} in server "gw" of `+cfg+"\n")
}
