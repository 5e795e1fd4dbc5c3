package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startServe starts mcpbridge serve with args over HTTP on loopback, in
// front of the demo server, and returns its MCP endpoint's URL, the
// process, and its stderr lines after the first as they come.
func startServe(t *testing.T, args ...string) (string, *exec.Cmd, <-chan string) {
	t.Helper()
	cmd, stderr := started(t, append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...), os.Kill, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	lines := make(chan string, 100)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "mcpbridge gateway: "); ok {
			url, _, _ = strings.Cut(url, " ")
			go func() {
				defer close(lines)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			return url, cmd, lines
		}
	}
	t.Fatalf("mcpbridge serve said no address (%v)", sc.Err())
	return "", nil, nil
}

// connectServe connects a go-sdk client to the gateway at url, speaking
// version ("" for go-sdk's choice), closed at the test's end, and returns
// it with a channel that receives each progress notification it gets.
func connectServe(t *testing.T, url, version string) (*mcp.ClientSession, <-chan struct{}) {
	t.Helper()
	progressed := make(chan struct{}, 1000)
	c := mcp.NewClient(&mcp.Implementation{Name: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default: // nobody is counting this many
			}
		},
	})
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, opts)
	if err != nil {
		t.Fatalf("connecting (%s): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, progressed
}

// Over HTTP, the gateway serves the demo's tools to both protocol
// generations; SIGTERM lets the call in flight finish, and the process
// then exits with the signal's status.
func TestServeOverHTTPDrainsOnSIGTERM(t *testing.T) {
	url, cmd, lines := startServe(t)
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		cs, _ := connectServe(t, url, v)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(res.Tools, func(tl *mcp.Tool) bool { return tl.Name == "slow_count" }) {
			t.Fatalf("%s: no slow_count among %d tools", v, len(res.Tools))
		}
	}
	cs, progressed := connectServe(t, url, "")
	params := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 3, "delay_ms": 100}}
	params.SetProgressToken("p")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-progressed
	cmd.Process.Signal(syscall.SIGTERM)
	if res := <-done; res == nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "counted to 3" {
		t.Fatalf("the call in flight at SIGTERM: %+v", res)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
		t.Errorf("exit: %v, want status 143", err)
	}
	var said []string
	for l := range lines {
		said = append(said, l)
	}
	if !slices.ContainsFunc(said, func(l string) bool { return strings.Contains(l, "gateway: draining") }) {
		t.Errorf("no drain in the log:\n%s", strings.Join(said, "\n"))
	}
}

// Over stdio, the gateway is a desktop host's only server.
func TestServeOverStdio(t *testing.T) {
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "desktop"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 1, "delay_ms": 0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "counted to 1" {
		t.Errorf("slow_count: %q", got)
	}
}

// An address other machines reach needs --allow-remote, and then bearer
// tokens; a token is never a flag.
func TestServeRefusesAnOpenEndpoint(t *testing.T) {
	r := mcpbridge(t, t.TempDir(), "", nil, "serve", "--http", "0.0.0.0:0")
	expect(t, r, 2)
	if !strings.Contains(r.err, "not a loopback address: add --allow-remote") {
		t.Errorf("stderr: %s", r.err)
	}
	r = mcpbridge(t, t.TempDir(), "", nil, "serve", "--http", "0.0.0.0:0", "--allow-remote")
	expect(t, r, 2)
	if !strings.Contains(r.err, "needs bearer tokens") {
		t.Errorf("stderr: %s", r.err)
	}
}

// The config's "gateway" section gives a client, named by its token, its
// own tools and rate limit.
func TestServeGivesAClientItsOwnToolsAndRateLimit(t *testing.T) {
	dir := t.TempDir()
	config := writeConfig(t, dir, "mcp.json", `{
		"mcpServers": {"demo": {"command": "`+bin+`", "args": ["serve-demo"]}},
		"gateway": {"clients": {"alice": {"allow": ["slow_*"], "rateLimit": {"rate": 0.001, "burst": 3}}}}}`)
	tokens := writeConfig(t, dir, "tokens.txt", "alice tok-alice\n")
	url, _, _ := startServe(t, "--config", config, "--token-file", tokens)
	client := &http.Client{Transport: oauthtest.Bearer("tok-alice")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "alice"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if !strings.Contains(tl.Name, "slow_") {
			t.Errorf("alice is shown %s", tl.Name)
		}
	}
	for i := range 5 {
		if _, err = cs.ListTools(t.Context(), nil); err != nil {
			break
		}
		if i == 4 {
			t.Fatal("alice's requests were never refused")
		}
	}
	if !strings.Contains(err.Error(), `rate limit exceeded for client "alice"`) {
		t.Errorf("the refusal: %v", err)
	}
}

// An --http address already in use is said before any server starts, not
// after every server of the config has been started for nothing.
func TestServeAddressInUseBeforeStarting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := mcpbridge(t, t.TempDir(), "", nil, "serve", "--http", ln.Addr().String())
	expect(t, r, 2, "address already in use")
	if strings.Contains(r.err, "✓") {
		t.Errorf("a server started:\n%s", r.err)
	}
}

// serve says each server's start and failure once, in its log, whose
// format --log chooses: the command line's progress lines would say a
// failing server a second time, and are not the log's format.
func TestServeSaysAFailingServerOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "servers.json", fmt.Sprintf(`{"mcpServers": {"home": {"command": %q, "args": ["serve-demo"]}, "broken": {"command": %q}}}`,
		bin, filepath.Join(dir, "missing")))
	r := mcpbridge(t, dir, "", nil, "serve", "--config", cfg)
	expect(t, r, 0, `server=broken`)
	if n := strings.Count(r.err, "no such file or directory"); n != 1 {
		t.Errorf("the failure is said %d times:\n%s", n, r.err)
	}
	r = mcpbridge(t, dir, "", nil, "serve", "--config", cfg, "--log", "json")
	expect(t, r, 0)
	for _, line := range strings.Split(strings.TrimSpace(r.err), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("a line of the JSON log is not JSON: %s", line)
		}
	}
}

// A client's policy in the config's "clients" covers every primitive, not
// tools alone: alice, allowed slow_*, is shown neither the demo's
// resources nor its templates, and reading one is refused, over both
// protocol generations; bob, with no policy, reads them.
func TestServeGivesAClientOnlyTheResourcesItsPolicyAllows(t *testing.T) {
	dir := t.TempDir()
	config := writeConfig(t, dir, "mcp.json", `{
		"mcpServers": {"demo": {"command": "`+bin+`", "args": ["serve-demo"]}},
		"gateway": {"clients": {"alice": {"allow": ["slow_*"]}}}}`)
	tokens := writeConfig(t, dir, "tokens.txt", "alice tok-alice\nbob tok-bob\n")
	url, _, _ := startServe(t, "--config", config, "--token-file", tokens)
	for _, v := range []string{"2026-07-28", "2025-11-25"} {
		for _, who := range []string{"alice", "bob"} {
			client := &http.Client{Transport: oauthtest.Bearer("tok-" + who)}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: who}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			resources, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			templates, err := cs.ListResourceTemplates(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			seen := len(resources.Resources) + len(templates.ResourceTemplates)
			var read error
			if seen > 0 || who == "alice" {
				_, read = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "notes://all"})
			}
			switch {
			case who == "alice" && (seen > 0 || read == nil):
				t.Errorf("%s: alice is shown %d resources and templates, and reads notes://all (%v)", v, seen, read)
			case who == "bob" && (seen == 0 || read != nil):
				t.Errorf("%s: bob is shown %d resources and templates, and reading notes://all says %v", v, seen, read)
			}
		}
	}
}
