package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// A mistake in a flag is said as the help writes flags (--name, -x for a
// one-letter flag), and a misspelt flag names the one meant: a user who
// reads "-jsn" in an error and "--json" in the help wonders which is wrong.
func TestFlagErrorsSpeakAsTheHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--bogus"}, "mcpbridge tools: unknown flag --bogus\nrun mcpbridge tools --help for usage\n"},
		{[]string{"tools", "--vendr", "openai"}, "mcpbridge tools: unknown flag --vendr; did you mean --vendor?\nrun mcpbridge tools --help for usage\n"},
		{[]string{"call", "--Json", "note_stats"}, "mcpbridge call: unknown flag --Json; did you mean --json?\n"},
		{[]string{"chat", "--modle", "x"}, "mcpbridge chat: unknown flag --modle; did you mean --model?\n"},
		{[]string{"tools", "--vendor", "opnai"}, `mcpbridge tools: invalid value "opnai" for --vendor: schema: unknown vendor "opnai" (want openai, anthropic or gemini)` + "\n"},
		{[]string{"tools", "--url"}, "mcpbridge tools: flag --url needs a value\n"},
		{[]string{"chat", "-p"}, "mcpbridge chat: flag -p needs a value\n"},
		{[]string{"tools", "--json=maybe"}, `mcpbridge tools: invalid boolean value "maybe" for --json: want true or false` + "\n"},
		{[]string{"serve", "--drain", "5"}, `mcpbridge serve: invalid value "5" for --drain: want a duration such as 30s or 1m30s` + "\n"},
	} {
		r := mcpbridge(t, "", "", nil, c.args...)
		expect(t, r, 2, c.want)
	}
}

// A --out that is not a directory is refused before any server starts: a
// tool found unable to save its images after it ran would have run (and
// written, for a tool that writes) for nothing.
func TestOutMustBeADirectory(t *testing.T) {
	dir := t.TempDir()
	missing, file := filepath.Join(dir, "missing"), writeConfig(t, dir, "file", "{}")
	r := mcpbridge(t, dir, "", nil, "call", "color_swatch", `{"color":"teal"}`, "--out", missing)
	expect(t, r, 2, `mcpbridge call: invalid value "`+missing+`" for --out: no such directory`+"\n")
	r = mcpbridge(t, dir, "", nil, "read", "notes://all", "--out", file)
	expect(t, r, 2, `mcpbridge read: invalid value "`+file+`" for --out: not a directory`+"\n")
	if strings.Contains(r.err, "✓") {
		t.Errorf("a server started:\n%s", r.err)
	}
}

// --transport takes the names its help gives, and a config file's
// spellings of them, refusing others as a flag (not as a config key, with
// stdio among the choices); given without --url, where it does nothing,
// it is refused.
func TestTransportFlag(t *testing.T) {
	r := mcpbridge(t, "", "", nil, "tools", "--transport", "grpc", "--url", "http://127.0.0.1/mcp")
	expect(t, r, 2, `mcpbridge tools: invalid value "grpc" for --transport: want streamable_http (or http) or sse`+"\n")
	r = mcpbridge(t, "", "", nil, "tools", "--transport", "sse", "--", "mcp-server-memory")
	expect(t, r, 2, "mcpbridge tools: --transport goes with --url\n")
	base := demoHTTP(t)
	for _, name := range []string{"streamable_http", "http", "streamable-http"} {
		expect(t, mcpbridge(t, t.TempDir(), "", nil, "tools", "--transport", name, "--url", base+"/mcp"), 0, "127.0.0.1: ready, 11 tools")
	}
	expect(t, mcpbridge(t, t.TempDir(), "", nil, "tools", "--transport", "sse", "--url", base+"/sse"), 0, "127.0.0.1: ready, 11 tools")
}

// Flags before the command are said to go after it, not taken for an
// unknown command named like a flag.
func TestFlagsBeforeTheCommand(t *testing.T) {
	r := mcpbridge(t, "", "", nil, "-v", "tools", "--json")
	expect(t, r, 2, "mcpbridge: flags go after the command: mcpbridge tools -v ...\n")
	r = mcpbridge(t, "", "", nil, "--header=Authorization: Bearer secret", "info")
	expect(t, r, 2, "mcpbridge: flags go after the command: mcpbridge info --header ...\n")
	if strings.Contains(r.err, "secret") {
		t.Errorf("the flag's value is echoed:\n%s", r.err)
	}
	r = mcpbridge(t, "", "", nil, "tolls")
	expect(t, r, 2, "mcpbridge: unknown command \"tolls\"; did you mean tools? run mcpbridge --help\n")
	r = mcpbridge(t, "", "", nil, "--json")
	expect(t, r, 2, "mcpbridge: --json is not a command: flags go after one; run mcpbridge --help\n")
}

// An --http address without a port is said to lack it, not to be a
// non-loopback address, which localhost is not.
func TestServeHTTPAddressNeedsAPort(t *testing.T) {
	for _, addr := range []string{"localhost", "127.0.0.1"} {
		r := mcpbridge(t, "", "", nil, "serve", "--http", addr)
		expect(t, r, 2, "mcpbridge serve: --http "+addr+": want host:port, such as 127.0.0.1:8080\n")
	}
}

// A malformed --header or --env is refused without its value, which is
// often a key: package flag quotes the value it could not take.
func TestSecretFlagValuesNotEchoed(t *testing.T) {
	r := mcpbridge(t, "", "", nil, "tools", "--url", "http://127.0.0.1/mcp", "--header", "Authorization=Bearer sk-secret")
	expect(t, r, 2, `mcpbridge tools: invalid value for --header: want 'Name: value', got "Auth…"`+"\n")
	r2 := mcpbridge(t, "", "", nil, "tools", "--env", "API_KEY:sk-secret", "--", "true")
	expect(t, r2, 2, "mcpbridge tools: invalid value for --env: want NAME=value\n")
	if strings.Contains(r.err+r2.err, "secret") {
		t.Errorf("a value is echoed:\n%s%s", r.err, r2.err)
	}
}

// Flags the usage line gives as alternatives are refused together, in
// every command that has such a pair.
func TestExclusiveFlags(t *testing.T) {
	expect(t, mcpbridge(t, "", "", nil, "tools", "--long", "--json"), 2, "mcpbridge tools: give --long (whole descriptions) or --json (the wire format, always whole), not both\n")
	expect(t, mcpbridge(t, "", "", nil, "call", "note_stats", "--json", "--raw"), 2, "not both")
}

// A server's command given without "--" before it is taken for the
// command's own words and flags: the error says where it goes, naming the
// word, whether a flag of the server's or a word too many was found first.
func TestForgottenDashesHinted(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "npx", "-y", "pkg"}, "mcpbridge tools: unknown flag -y; if npx starts a server, it goes after --: mcpbridge tools -- npx ...\n"},
		{[]string{"tools", "node", "server.js", "--port", "3000"}, "mcpbridge tools: unknown flag --port; if node starts a server, it goes after --: mcpbridge tools -- node ...\n"},
		{[]string{"info", "uvx", "mcp-server-time"}, `mcpbridge info: info takes no arguments, got "uvx"; if uvx starts a server, it goes after --: mcpbridge info -- uvx ...` + "\n"},
		{[]string{"call", "echo", "{}", "npx", "-y", "pkg"}, "mcpbridge call: unknown flag -y; if npx starts a server, it goes after --: mcpbridge call ... -- npx ...\n"},
		{[]string{"call", "echo", "{}", "uvx", "pkg"}, "if uvx starts a server, it goes after --: mcpbridge call ... -- uvx ...\n"},
		{[]string{"read", "notes://all", "npx", "pkg"}, "if npx starts a server, it goes after --: mcpbridge read ... -- npx ...\n"},
		{[]string{"chat", "npx", "-y", "pkg"}, "mcpbridge chat: unknown flag -y; if npx starts a server, it goes after --: mcpbridge chat -- npx ...\n"},
	} {
		expect(t, mcpbridge(t, "", "", nil, c.args...), 2, c.want)
	}
	// The command's own words are not taken for a server's, nor are words
	// given to serve-demo, which starts none.
	r := mcpbridge(t, "", "", nil, "call", "echo", "--bogus")
	expect(t, r, 2, "mcpbridge call: unknown flag --bogus\n")
	r = mcpbridge(t, "", "", nil, "serve-demo", "npx", "-y")
	expect(t, r, 2, "mcpbridge serve-demo: unknown flag -y\n")
	r = mcpbridge(t, "", "", nil, "serve-demo", "npx")
	expect(t, r, 2, "mcpbridge serve-demo: serve-demo takes no arguments\n")
}

// A negative queue bound of serve is refused, naming the flag or the
// config key it came from; a flag given is taken over the key.
func TestServeRefusesANegativeQueueBound(t *testing.T) {
	dir := t.TempDir()
	config := writeConfig(t, dir, "mcp.json", `{"mcpServers": {}, "gateway": {"limits": {"clientQueueBytes": -3}}}`)
	r := mcpbridge(t, dir, "", nil, "serve", "--server-queue-bytes", "-5")
	expect(t, r, 2, `mcpbridge serve: invalid value "-5" for --server-queue-bytes: want a positive bound, or 0 for the default`)
	r = mcpbridge(t, dir, "", nil, "serve", "--config", config)
	expect(t, r, 2, `"gateway": "limits": "clientQueueBytes": want a positive bound, or 0 for the default`)
	r = mcpbridge(t, dir, "", nil, "serve", "--config", config, "--client-queue-bytes", "-1")
	expect(t, r, 2, `mcpbridge serve: invalid value "-1" for --client-queue-bytes: want a positive bound, or 0 for the default`)
}
