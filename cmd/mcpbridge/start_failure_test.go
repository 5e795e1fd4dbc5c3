package main_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// A server that does not start is said in one short sentence of cause,
// then its last words on stderr (whether or not -v is given) and a hint
// at --env; -v adds the whole chain. The words are those of what the user
// gave: no "required server" for the one command after --.
func TestStartFailureSaysWhy(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, withServer(t, "exit-at-init", "tools")...)
	expect(t, r, 3)
	want := `mcpbridge tools: server "mcpbridge" did not start: it exited with status 3 before answering
  its last words on stderr:
    fatal: no configuration
  hint: variables exported in your shell do not reach a server; if it needs one, give it with --env NAME=value
`
	if r.err != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.err, want)
	}
	r = mcpbridge(t, dir, "", nil, withServer(t, "exit-at-init", "tools", "-v")...)
	expect(t, r, 3, "  its last words on stderr:\n    fatal: no configuration\n", `  detail: server "mcpbridge": connect: `)
	if strings.Contains(r.err, "required server") {
		t.Errorf("stderr speaks of a required server:\n%s", r.err)
	}
}

// A Node server that crashed on its code is said by its error line, not
// the last frames of its stack trace, and with no hint at --env: its
// environment is not what failed.
func TestStartFailureOfACrash(t *testing.T) {
	trace := `/srv/index.js:3
  const x = {
            ^

SyntaxError: Unexpected token '}'
    at internalCompileFunction (node:internal/vm:76:18)
    at wrapSafe (node:internal/modules/cjs/loader:1283:20)
    at Module._compile (node:internal/modules/cjs/loader:1328:27)
    at Module.load (node:internal/modules/cjs/loader:1203:32)
    at Module._load (node:internal/modules/cjs/loader:1019:12)

Node.js v20.11.0`
	r := mcpbridge(t, t.TempDir(), "", nil, "tools", "--", "sh", "-c", fmt.Sprintf("cat >&2 <<'EOF'\n%s\nEOF\nexit 1", trace))
	expect(t, r, 3)
	want := `mcpbridge tools: server "sh" did not start: it exited with status 1 before answering
  its last words on stderr:
    SyntaxError: Unexpected token '}'
    Node.js v20.11.0
`
	if r.err != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.err, want)
	}
}

// A server that says a variable is missing, one its environment lacks,
// is told how to pass it: --env after --, its "env" key in a config. A
// variable exported in the shell does not reach it; one given does.
func TestStartFailureHintsAtEnv(t *testing.T) {
	dir := t.TempDir()
	script := `echo "Error: BRAVE_API_KEY environment variable is required" >&2; exit 1`
	r := mcpbridge(t, dir, "", []string{"BRAVE_API_KEY=exported"}, "tools", "--", "sh", "-c", script)
	expect(t, r, 3, `  hint: server "sh" says BRAVE_API_KEY is missing, and variables exported in your shell do not reach a server: give it with --env BRAVE_API_KEY=value`)
	r = mcpbridge(t, dir, "", nil, "tools", "--env", "BRAVE_API_KEY=given", "--", "sh", "-c", script)
	expect(t, r, 3, "if it needs one, give it with --env NAME=value")
	if strings.Contains(r.err, "says BRAVE_API_KEY") {
		t.Errorf("a hint at a variable the server was given:\n%s", r.err)
	}
	cfg := writeConfig(t, dir, "brave.json", fmt.Sprintf(`{"mcpServers": {"brave": {"command": "sh", "args": ["-c", %q]}}}`, script))
	r = mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, `✗ brave: did not start: it exited with status 1 before answering (`, `  hint: server "brave" says BRAVE_API_KEY is missing`,
		`give it with the "env" of server "brave" in `+cfg)
}

// A server that starts but says on stderr that a variable is missing gets
// the hint once the command is done; given the variable, it does not.
func TestMissingVariableHintAfterAStart(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, withServer(t, "needs-key", "tools")...)
	expect(t, r, 0, "echo")
	if want := `hint: server "mcpbridge" says API_KEY is missing, and variables exported in your shell do not reach a server: give it with --env API_KEY=value` + "\n"; !strings.HasSuffix(r.err, want) {
		t.Errorf("stderr:\n%s\nwant it to end:\n%s", r.err, want)
	}
	r = mcpbridge(t, dir, "", nil, append([]string{"tools", "--env", "API_KEY=k"}, hostileServer(t, "needs-key")...)...)
	expect(t, r, 0, "echo")
	if strings.Contains(r.err, "hint:") {
		t.Errorf("a hint at a variable the server was given:\n%s", r.err)
	}
}

// A server that writes to stdout what is not JSON-RPC, then exits, is said
// as one that exited, with what it wrote quoted apart, as its stderr is,
// and read for a missing variable as its stderr is: many servers print
// their complaint to stdout.
func TestStartFailureQuotesStdout(t *testing.T) {
	script := `echo "Starting server"; echo "Error: BRAVE_API_KEY is not set"; exit 1`
	r := mcpbridge(t, t.TempDir(), "", nil, "tools", "--", "sh", "-c", script)
	expect(t, r, 3)
	want := `mcpbridge tools: server "sh" did not start: it exited with status 1 before answering
  it wrote to stdout, which is not JSON-RPC:
    Starting server
    Error: BRAVE_API_KEY is not set
  hint: server "sh" says BRAVE_API_KEY is missing, and variables exported in your shell do not reach a server: give it with --env BRAVE_API_KEY=value
`
	if r.err != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", r.err, want)
	}
}

// A server that breaks the protocol is said as the host found it: the
// host ends the connection, the server exits as its stdin closes, and that
// exit is no cause, nor a reason to hint at --env.
func TestStartFailureTheHostFound(t *testing.T) {
	dir := t.TempDir()
	for mode, cause := range map[string]string{
		"bad-version": `unsupported protocol version: "1999-01-01"`,
		"cursor-loop": `tools/list: cursor "again" repeated on page 3: the listing would never end`,
		"endless":     `tools/list: more than 100 pages (raise the page cap with WithMaxPages)`,
	} {
		r := mcpbridge(t, dir, "", nil, withServer(t, mode, "tools")...)
		want := `mcpbridge tools: server "mcpbridge" did not start: ` + cause + "\n"
		if r.code != 3 || r.err != want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 3 and:\n%s", mode, r.code, r.err, want)
		}
	}
}

// server-basic-vanillajs without --stdio serves MCP over HTTP, and says so
// on stdout: it fails at once, not at its connect timeout (10 minutes here,
// past the test's own limit on a run), says so, quotes its stderr once and
// suggests --url with the address it printed; a config's server is told
// of "url".
func TestStartFailureOfAnHTTPServer(t *testing.T) {
	app := npmtest.Bin(t, "mcp-server-basic-vanillajs")
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "app.json", fmt.Sprintf(`{"mcpServers": {"app": {"command": %q, "env": {"PORT": "0"}, "timeout": "10m", "required": true}}}`, app))
	r := mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, `server "app" of `+cfg+` did not start: it serves MCP over HTTP, not over stdio: it says it listens on http://localhost:0/…`,
		`hint: give it its stdio flag if it has one (often --stdio), or start it apart and give "url": "http://localhost:0/mcp" in place of "command" in `+cfg)
	if n := strings.Count(r.err, "DNS rebinding"); n != 1 {
		t.Errorf("its stderr quoted %d times:\n%s", n, r.err)
	}
	r = mcpbridge(t, dir, "", nil, "tools", "--env", "PORT=0", "--", app)
	expect(t, r, 3, "or start it apart and use --url http://localhost:0/mcp\n")
}

// A server that says only on stderr that it listens on HTTP may be a slow
// stdio server with an OAuth callback, and is given its connect timeout;
// the failure then quotes its stderr once and suggests --url.
func TestStartTimeoutOfAnHTTPServer(t *testing.T) {
	dir := t.TempDir()
	script := `echo "INFO: Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)" >&2; sleep 300`
	cfg := writeConfig(t, dir, "py.json", fmt.Sprintf(`{"mcpServers": {"py": {"command": "sh", "args": ["-c", %q], "timeout": "1s", "required": true}}}`, script))
	r := mcpbridge(t, dir, "", nil, "tools", "--config", cfg)
	expect(t, r, 3, "did not answer in time", `or start it apart and give "url": "http://127.0.0.1:8000" in place of "command" in `+cfg)
	if n := strings.Count(r.err, "Uvicorn running"); n != 1 {
		t.Errorf("its stderr quoted %d times:\n%s", n, r.err)
	}
}
