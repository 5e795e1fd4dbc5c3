package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// env is a variable lookup over a fixed map, so no test depends on the
// environment it runs in.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

var testVars = map[string]string{
	"HOME":               "/home/ada",
	"GITHUB_TOKEN":       "ghp_from_env",
	"LINEAR_TOKEN":       "lin_from_env",
	"PERPLEXITY_API_KEY": "pplx_from_env",
	"EMPTY":              "",
}

func load(t *testing.T, name string) *Config {
	t.Helper()
	c, err := Loader{LookupEnv: env(testVars)}.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// public drops what parsing keeps for Validate, to compare the fields.
func public(servers []Server) []Server {
	out := slices.Clone(servers)
	for i := range out {
		out[i].transportKey, out[i].problems, out[i].unresolved = "", nil, nil
	}
	return out
}

// The three formats people have, read into the same fields, in file order.
func TestLoadFormats(t *testing.T) {
	tests := []struct {
		file string
		want []Server
	}{{
		file: "claude_desktop.json",
		want: []Server{{
			Name:    "filesystem",
			Command: "npx",
			Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop"},
		}, {
			Name:    "github",
			Command: "npx",
			Args:    []string{"-y", "@modelcontextprotocol/server-github"},
			Env:     map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_from_env"},
		}, {
			// Disabled, so its unset variable is no problem and stays as written.
			Name:     "brave-search",
			Command:  "npx",
			Args:     []string{"-y", "@modelcontextprotocol/server-brave-search"},
			Env:      map[string]string{"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
			Disabled: true,
		}},
	}, {
		file: "cursor.json",
		want: []Server{{
			Name:    "linear",
			URL:     "https://mcp.linear.app/sse",
			Headers: map[string]string{"Authorization": "Bearer lin_from_env"},
		}, {
			Name:         "context7",
			URL:          "https://mcp.context7.com/mcp",
			Transport:    StreamableHTTP,
			Prefix:       "docs",
			AllowedTools: []string{"resolve-library-id", "get-library-docs"},
			Timeout:      20 * time.Second,
			CallTimeout:  2 * time.Minute,
		}, {
			Name:          "local",
			Transport:     Stdio,
			Command:       "uvx",
			Args:          []string{"mcp-server-time", "--local-timezone=Europe/Paris"},
			Dir:           "/srv/mcp",
			Namespace:     NamespaceNone,
			DisabledTools: []string{"convert_time"},
			Required:      true,
		}},
	}, {
		file: "vscode.json",
		want: []Server{{
			Name:      "perplexity",
			Transport: Stdio,
			Command:   "npx",
			Args:      []string{"-y", "server-perplexity-ask"},
			Env:       map[string]string{"PERPLEXITY_API_KEY": "pplx_from_env"},
		}, {
			Name:      "fetch",
			Transport: StreamableHTTP,
			URL:       "http://127.0.0.1:8931/mcp",
		}, {
			Name:      "legacy",
			Transport: SSE,
			URL:       "https://example.com/events",
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c := load(t, tt.file)
			if err := c.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if got := public(c.Servers); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("servers:\n got %#v\nwant %#v", unmask(got), unmask(tt.want))
			}
		})
	}
}

// unmask prints servers with their values, for a failing test only.
func unmask(servers []Server) string {
	type plain Server // no GoString method
	var b strings.Builder
	for _, s := range servers {
		fmt.Fprintf(&b, "\n  %+v", plain(s))
	}
	return b.String()
}

// The servers keep the file's order, not the sorted order a map would give.
func TestParseKeepsFileOrder(t *testing.T) {
	c, err := Parse([]byte(`{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "mid": {"command": "m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Servers {
		names = append(names, s.Name)
	}
	if want := []string{"zeta", "alpha", "mid"}; !slices.Equal(names, want) {
		t.Errorf("order %q, want %q", names, want)
	}
}

// What Parse cannot read fails at once; the syntax error gives its place.
func TestParseFails(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": x}\n  }\n}", "line 3, column 22: invalid character 'x'"},
		{"trailing comma", `{"mcpServers": {"a": {"command": "x"},}}`, "line 1, column 39: invalid character '}'"},
		{"truncated", `{"mcpServers": {`, "line 1, column 16: unexpected end of JSON input"},
		{"empty", ``, "unexpected end of JSON input"},
		{"not an object", `["mcpServers"]`, "the config is not a JSON object"},
		{"both keys", `{"mcpServers": {}, "servers": {}}`, `both "mcpServers" and "servers"`},
		{"key twice", `{"servers": {}, "servers": {}}`, `key "servers" appears twice`},
		{"no servers", `{"globalShortcut": "x"}`, `no "mcpServers" or "servers" object`},
		{"misspelt servers", `{"mcpServer": {}}`, `(is "mcpServer" meant to be "mcpServers"?)`},
		{"servers not an object", `{"servers": []}`, `"servers" is not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}

	// A syntax error stays a *json.SyntaxError, and Load names the file.
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte("{\n  \"servers\": {,}\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var se *json.SyntaxError
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), path+":2:15: ") {
		t.Errorf("Load error %v, want a *json.SyntaxError at %s:2:15", err, path)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
}

// A disabled server may name unset variables, and the values left as
// written are not judged; enabled, the same server has one problem per key.
func TestDisabledServerVariables(t *testing.T) {
	for _, disabled := range []bool{true, false} {
		data := fmt.Sprintf(`{"mcpServers": {"s": {"url": "${URL}", "headers": {"A": "${TOKEN}"}, "disabled": %v}}}`, disabled)
		c, err := Loader{LookupEnv: env(nil)}.Parse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		err = c.Validate()
		var ve *InvalidError
		switch {
		case disabled && err != nil:
			t.Errorf("disabled: %v", err)
		case !disabled && (!errors.As(err, &ve) || len(ve.Problems) != 2):
			t.Errorf("enabled: %v, want a problem for url and one for headers", err)
		}
	}
}

// An empty server object, a null one and a byte order mark are all fine.
func TestParseEdges(t *testing.T) {
	for _, data := range []string{`{"mcpServers": {}}`, `{"mcpServers": null}`, "\xef\xbb\xbf{\"servers\": {}}"} {
		c, err := Parse([]byte(data))
		if err != nil || len(c.Servers) != 0 || c.Validate() != nil {
			t.Errorf("Parse(%q) = %v, %v; want an empty, valid config", data, c, err)
		}
	}
}

func TestExpand(t *testing.T) {
	vars := env(map[string]string{"A": "1", "B": "two", "EMPTY": ""})
	tests := []struct {
		in, want, problem string
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "1"},
		{in: "${env:A}", want: "1"},
		{in: "x${A}y${env:B}z", want: "x1ytwoz"},
		{in: "$${A}", want: "${A}"},
		{in: "$$${A}", want: "$${A}"}, // the first $ is plain; "$${" is the escape
		{in: "$A and $5 and $", want: "$A and $5 and $"},
		{in: "${EMPTY}", want: ""},
		{in: "${MISSING:-fallback}", want: "fallback"},
		{in: "${EMPTY:-fallback}", want: "fallback"},
		{in: "${A:-fallback}", want: "1"},
		{in: "${env:MISSING:-}", want: ""},
		{in: "${MISSING}", problem: "variable MISSING is not set"},
		{in: "${env:MISSING}", problem: "variable MISSING is not set"},
		{in: "${input:api-key}", problem: "${input:api-key} asks the user for a value"},
		{in: "${workspaceFolder:x}", problem: "${workspaceFolder:...} is not supported"},
		{in: "${A", problem: "${ without a closing }"},
		{in: "${}", problem: "not a variable name"},
		{in: "${sk-123 secret}", problem: "not a variable name"},
	}
	for _, tt := range tests {
		got, problem := expand(tt.in, vars)
		if got != tt.want || problem != tt.problem && !strings.Contains(problem, tt.problem) || (problem == "") != (tt.problem == "") {
			t.Errorf("expand(%q) = %q, %q; want %q, %q", tt.in, got, problem, tt.want, tt.problem)
		}
		if strings.Contains(problem, "secret") {
			t.Errorf("expand(%q): problem %q quotes the text", tt.in, problem)
		}
	}
}

// Every string field that may hold a variable is expanded, and each missing
// variable is a problem naming the server, the key and the variable.
func TestExpandFields(t *testing.T) {
	data := `{"mcpServers": {
		"cmd": {"command": "${BIN}", "args": ["--token=${T1}", "ok"], "env": {"K": "${T2}"}, "cwd": "${DIR}"},
		"web": {"url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${T3}", "X-Id": "${input:id}"}},
		"set": {"command": "${BIN}", "args": ["${DIR}/x"], "env": {"K": "v-${BIN}"}, "cwd": "${DIR}"}
	}}`
	c, err := Loader{LookupEnv: env(map[string]string{"BIN": "/bin/srv", "DIR": "/srv"})}.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	set := c.Servers[2]
	if set.Command != "/bin/srv" || set.Args[0] != "/srv/x" || set.Env["K"] != "v-/bin/srv" || set.Dir != "/srv" {
		t.Errorf("expanded server: %+v", unmask([]Server{set}))
	}
	want := []Problem{
		{"cmd", "args", "argument 1: variable T1 is not set", ""},
		{"cmd", "env", `"K": variable T2 is not set`, ""},
		{"web", "url", "variable HOST is not set", ""},
		{"web", "headers", `"Authorization": variable T3 is not set`, ""},
		{"web", "headers", `"X-Id": ${input:id} asks the user for a value, which a config file cannot do; use ${env:NAME}`, ""},
	}
	var ve *InvalidError
	if err := c.Validate(); !errors.As(err, &ve) {
		t.Fatalf("Validate: %v, want a *InvalidError", err)
	}
	if !slices.Equal(ve.Problems, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", lines(ve.Problems), lines(want))
	}
}

func lines(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %#v\n", p)
	}
	return b.String()
}

// One Validate reports every problem of a file, each with its server and
// key, and never a secret of the file.
func TestValidateReportsEverything(t *testing.T) {
	c := load(t, "problems.json")
	err := c.Validate()
	var ve *InvalidError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate: %v, want a *InvalidError", err)
	}
	want := []struct{ server, key, message string }{
		{"github", "comand", `unknown key; did you mean "command"?`},
		{"github", "command", "missing"},
		{"web", "url", `set together with "command"`},
		{"search", "type", `"websocket" is not a transport`},
		{"search", "env", "only for a server started by command"},
		{"search", "prefix", `"9lives" is not an identifier`},
		{"search", "allowedTools", "empty: the server would offer no tool"},
		{"search", "timeout", "negative (-5s)"},
		{"notes", "callTimeout", `want a duration such as "30s" or a number of seconds`},
		{"notes", "disabledTools", `"get" is also in allowedTools`},
	}
	if len(ve.Problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%v", len(ve.Problems), len(want), err)
	}
	for i, w := range want {
		if i >= len(ve.Problems) {
			break
		}
		p := ve.Problems[i]
		if p.Server != w.server || p.Key != w.key || !strings.Contains(p.Message, w.message) {
			t.Errorf("problem %d: %#v, want server %q key %q message containing %q", i, p, w.server, w.key, w.message)
		}
	}
	msg := err.Error()
	if n := strings.Count(msg, "\n") + 1; n != len(ve.Problems) {
		t.Errorf("Error() has %d lines for %d problems:\n%s", n, len(ve.Problems), msg)
	}
	file := filepath.Join("testdata", "problems.json")
	for i, line := range strings.Split(msg, "\n") {
		if !strings.HasPrefix(line, file+": server ") || ve.Problems[i].File != file {
			t.Errorf("line %q does not name its file and server", line)
		}
	}
	for _, secret := range []string{"ghp_s3cr3t", "k3y-s3cr3t", "files.example.com", "server-github"} {
		if strings.Contains(msg, secret) {
			t.Errorf("Error() leaks %q:\n%s", secret, msg)
		}
	}
}

// Each check of the fields, on configs built in code.
func TestValidateChecks(t *testing.T) {
	cmd := func(s Server) Server { s.Name, s.Command = "s", "srv"; return s }
	web := func(s Server) Server { s.Name, s.URL = "s", "https://example.com/mcp"; return s }
	tests := []struct {
		name    string
		servers []Server
		key     string // of the one problem expected; "-" for none
		message string
	}{
		{"command", []Server{cmd(Server{})}, "-", ""},
		{"url", []Server{web(Server{})}, "-", ""},
		{"all extras", []Server{cmd(Server{Prefix: "p_1", AllowedTools: []string{"a"}, DisabledTools: []string{"b"}, Timeout: time.Second, CallTimeout: time.Second, MaxDescription: 10, Transport: Stdio})}, "-", ""},
		{"neither", []Server{{Name: "s"}}, "command", "missing"},
		{"empty name", []Server{{Command: "x"}}, "", "empty server name"},
		{"control in name", []Server{{Name: "a\nb", Command: "x"}}, "", "control character"},
		{"twice", []Server{cmd(Server{}), cmd(Server{})}, "", "defined more than once"},
		{"same prefix", []Server{cmd(Server{}), {Name: "t", Command: "y", Prefix: "s"}}, "prefix", `like those of server "s"`},
		{"same prefix, one disabled", []Server{cmd(Server{}), {Name: "t", Command: "y", Prefix: "s", Disabled: true}}, "-", ""},
		{"same name without namespace", []Server{cmd(Server{Namespace: NamespaceNone}), {Name: "t", Command: "y", Namespace: NamespaceNone}}, "-", ""},
		{"ws scheme", []Server{{Name: "s", URL: "ws://example.com"}}, "url", `scheme "ws": want http or https`},
		{"no scheme", []Server{{Name: "s", URL: "example.com/mcp"}}, "url", `scheme "": want http or https`},
		{"no host", []Server{{Name: "s", URL: "https:///mcp"}}, "url", "no host"},
		{"bad url", []Server{{Name: "s", URL: "https://exa mple.com/%zz"}}, "url", "not a valid URL"},
		{"headers on stdio", []Server{cmd(Server{Headers: map[string]string{"A": "b"}})}, "headers", "only for a server reached by url"},
		{"args on http", []Server{web(Server{Args: []string{"x"}})}, "args", "only for a server started by command"},
		{"cwd on http", []Server{web(Server{Dir: "/tmp"})}, "cwd", "only for a server started by command"},
		{"stdio with url", []Server{web(Server{Transport: Stdio})}, "transport", `"stdio" is for a server started by command`},
		{"sse with command", []Server{cmd(Server{Transport: SSE})}, "transport", `"sse" is for a server reached by url`},
		{"unknown transport", []Server{web(Server{Transport: "grpc"})}, "transport", `"grpc" is not a transport`},
		{"bad prefix", []Server{cmd(Server{Prefix: "my-tools"})}, "prefix", "not an identifier"},
		{"bad namespace", []Server{cmd(Server{Namespace: "global"})}, "namespace", `"global": want "server" or "none"`},
		{"prefix and namespace", []Server{cmd(Server{Prefix: "p", Namespace: NamespaceNone})}, "namespace", `set together with "prefix"`},
		{"empty allow list", []Server{cmd(Server{AllowedTools: []string{}})}, "allowedTools", "empty"},
		{"allowed twice", []Server{cmd(Server{AllowedTools: []string{"a", "a"}})}, "allowedTools", `"a" is listed twice`},
		{"empty tool name", []Server{cmd(Server{DisabledTools: []string{""}})}, "disabledTools", "an empty tool name"},
		{"allowed and disabled", []Server{cmd(Server{AllowedTools: []string{"a", "b"}, DisabledTools: []string{"b"}})}, "disabledTools", `"b" is also in allowedTools`},
		{"negative timeout", []Server{cmd(Server{Timeout: -time.Second})}, "timeout", "negative"},
		{"negative call timeout: no bound", []Server{cmd(Server{CallTimeout: -time.Second})}, "-", ""},
		{"negative max description", []Server{cmd(Server{MaxDescription: -1})}, "maxDescription", "negative"},
		{"env name", []Server{cmd(Server{Env: map[string]string{"A=B": "v"}})}, "env", `"A=B" is not a variable name`},
		{"header value", []Server{web(Server{Headers: map[string]string{"Authorization": "Bearer x\r\nHost: evil"}})}, "headers", `the value of "Authorization" has a line break`},
		{"header name", []Server{web(Server{Headers: map[string]string{"X Token": "v"}})}, "headers", `"X Token" is not a header name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (&Config{Servers: tt.servers}).Validate()
			if tt.key == "-" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var ve *InvalidError
			if !errors.As(err, &ve) || len(ve.Problems) != 1 {
				t.Fatalf("Validate: %v, want one problem", err)
			}
			if p := ve.Problems[0]; p.Key != tt.key || !strings.Contains(p.Message, tt.message) {
				t.Errorf("problem %#v, want key %q and a message containing %q", p, tt.key, tt.message)
			}
			if strings.Contains(err.Error(), "evil") {
				t.Errorf("a header value leaks: %v", err)
			}
		})
	}
}

// Problems name the key the file used, "type" or "transport", and a server
// entry must be an object.
func TestParseProblems(t *testing.T) {
	data := `{"servers": {
		"a": {"url": "https://example.com", "transport": "stdio"},
		"b": "npx server",
		"c": {"command": "x", "type": "http"},
		"d": {"command": "x", "type": "sse", "transport": "stdio"},
		"e": {"command": "x", "command": "y", "args": "one", "env": {"N": 1}, "required": "yes", "namespace": 2},
		"f": {"url": "https://example.com", "type": "streamableHttp", "transport": "streamable-http"}
	}}`
	c, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{
		{"b", "", "want an object of settings", ""},
		{"a", "transport", `"stdio" is for a server started by command, and this one has a url`, ""},
		{"c", "type", `"streamable_http" is for a server reached by url, and this one has a command`, ""},
		{"d", "transport", `"stdio" disagrees with "type" "sse"`, ""},
		{"e", "command", "set twice", ""},
		{"e", "args", "want an array of strings", ""},
		{"e", "env", "want an object of strings", ""},
		{"e", "required", "want true or false", ""},
		{"e", "namespace", `want "server" or "none"`, ""},
	}
	var ve *InvalidError
	if err := c.Validate(); !errors.As(err, &ve) || !slices.Equal(ve.Problems, want) {
		t.Errorf("Validate: %v\nwant:\n%s", err, lines(want))
	}
	if got := c.Servers[len(c.Servers)-1].Transport; got != StreamableHTTP {
		t.Errorf("transport of f: %q", got)
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct{ key, want string }{
		{"comand", "command"},
		{"Command", "command"},
		{"arg", "args"},
		{"envs", "env"},
		{"urls", "url"},
		{"tpye", "type"},
		{"headrs", "headers"},
		{"transprot", "transport"},
		{"allowed_tools", "allowedTools"},
		{"allowedtools", "allowedTools"},
		{"alowedTools", "allowedTools"},
		{"disabled-tools", "disabledTools"},
		{"callTimout", "callTimeout"},
		{"call_timeout", "callTimeout"},
		{"serverUrl", "url"},
		{"workingDirectory", "cwd"},
		{"environment", "env"},
		{"autoApprove", ""},
		{"xyz", ""},
		{"id", ""},
		{strings.Repeat("command", 20), ""},
	}
	for _, tt := range tests {
		s, _ := parseServer("s", json.RawMessage(fmt.Sprintf(`{%q: 0}`, tt.key)))
		want := "unknown key"
		if tt.want != "" {
			want = fmt.Sprintf("unknown key; did you mean %q?", tt.want)
		}
		if len(s.problems) != 1 || s.problems[0].Message != want {
			t.Errorf("%q: problems %v, want %q", tt.key, s.problems, want)
		}
	}
}

// A timeout is a duration string or a number of seconds; zero is the
// default, and only the connect timeout may not be negative.
func TestDurations(t *testing.T) {
	tests := []struct {
		value   string
		want    time.Duration
		problem string
	}{
		{value: `30`, want: 30 * time.Second},
		{value: `2.5`, want: 2500 * time.Millisecond},
		{value: `"30s"`, want: 30 * time.Second},
		{value: `"1m30s"`, want: 90 * time.Second},
		{value: `"250ms"`, want: 250 * time.Millisecond},
		{value: `null`},
		{value: `-3`, want: -3 * time.Second, problem: "negative (-3s)"},
		{value: `"-1m"`, want: -time.Minute, problem: "negative (-1m0s)"},
		{value: `0`},
		{value: `"0s"`},
		{value: `"30"`, problem: `want a duration such as "30s"`},
		{value: `"soon"`, problem: `want a duration such as "30s"`},
		{value: `true`, problem: `want a duration such as "30s"`},
		{value: `[30]`, problem: `want a duration such as "30s"`},
		{value: `1e300`, problem: "too large"},
	}
	for _, tt := range tests {
		data := fmt.Sprintf(`{"mcpServers": {"s": {"command": "x", "timeout": %s, "callTimeout": %[1]s}}}`, tt.value)
		c, err := Parse([]byte(data))
		if err != nil {
			t.Fatalf("%s: %v", tt.value, err)
		}
		s := c.Servers[0]
		if s.Timeout != tt.want || s.CallTimeout != tt.want {
			t.Errorf("%s: timeouts %v and %v, want %v", tt.value, s.Timeout, s.CallTimeout, tt.want)
		}
		err = c.Validate()
		if tt.problem == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.value, err)
			}
			continue
		}
		var ve *InvalidError
		if !errors.As(err, &ve) || ve.Problems[0].Key != "timeout" || !strings.Contains(ve.Problems[0].Message, tt.problem) {
			t.Errorf("%s: %v, want a problem for key timeout containing %q", tt.value, err, tt.problem)
		}
	}
}

func TestToolPrefix(t *testing.T) {
	tests := []struct {
		s    Server
		want string
	}{
		{Server{Name: "github"}, "github"},
		{Server{Name: "github", Namespace: NamespaceServer}, "github"},
		{Server{Name: "github", Prefix: "gh"}, "gh"},
		{Server{Name: "github", Namespace: NamespaceNone}, ""},
	}
	for _, tt := range tests {
		if got := tt.s.ToolPrefix(); got != tt.want {
			t.Errorf("%v: ToolPrefix() = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// No way of printing a config shows an environment value, a header value,
// an argument or a URL's secret parts.
func TestPrintingHidesSecrets(t *testing.T) {
	c := &Config{Servers: []Server{{
		Name:    "cmd",
		Command: "npx",
		Args:    []string{"--api-key=arg-secret"},
		Env:     map[string]string{"TOKEN": "env-secret"},
		Dir:     "/srv",
	}, {
		Name:         "web",
		URL:          "https://user:pw-secret@example.com/path-secret/sse?key=query-secret#frag-secret",
		Headers:      map[string]string{"Authorization": "Bearer header-secret"},
		Transport:    SSE,
		AllowedTools: []string{"search"},
		Timeout:      time.Second,
	}}}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "config", c, "server", c.Servers[1])
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "config", c, "server", c.Servers[0])
	outputs := map[string]string{
		"%v":   fmt.Sprintf("%v", c),
		"%+v":  fmt.Sprintf("%+v", c),
		"%#v":  fmt.Sprintf("%#v", c),
		"%s":   fmt.Sprintf("%s", c.Servers),
		"%#v ": fmt.Sprintf("%#v", c.Servers),
		"log":  logged.String(),
	}
	for verb, out := range outputs {
		if strings.Contains(out, "secret") {
			t.Errorf("%s leaks: %s", verb, out)
		}
		// What is not secret is shown, so the output is still of use.
		for _, shown := range []string{"TOKEN", "Authorization", "example.com", "npx"} {
			if !strings.Contains(out, shown) {
				t.Errorf("%s does not show %q: %s", verb, shown, out)
			}
		}
	}
	if got, want := c.Servers[1].String(), `server "web" url https://…@example.com/… headers {"Authorization": "…"} transport sse allowedTools [search] timeout 1s`; got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if got, want := c.Servers[0].GoString(), `config.Server{Name:"cmd", Command:"npx", Args:[]string{"…"}, Env:map[string]string{"TOKEN":"…"}, Dir:"/srv"}`; got != want {
		t.Errorf("GoString() =\n%s\nwant\n%s", got, want)
	}
}

// Validate says every problem of a server in one order, key by key as the
// checks run, each message as written here: the whole text is held, so a
// check that moves, merges or rewords a problem shows. Files that cannot
// be read are named under a directory that does not exist.
func TestValidateSaysEveryProblemInOrder(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	c := &Config{file: "mcp.json", Servers: []Server{{
		Name: "a\tb", Command: "srv", URL: "ws://example.com", Transport: "grpc", transportKey: "type",
		Args: []string{"-v"}, Env: map[string]string{"B": "x\x00", "A=1": "v"}, Dir: "/srv",
		Headers: map[string]string{"X Token": "v", "Ok": "a\r\nb"},
		Roots:   []string{"/a", "", "/a"}, Prefix: "9lives", Namespace: "global",
		AllowedTools: []string{"a", "", "a"}, DisabledTools: []string{"", "a"},
		Timeout: -time.Second, MaxDescription: -1,
		Auth: &Auth{Grant: "enterprise", ClientAuth: "private_key_jwt", Issuer: "http://as.example"},
	}, {
		Name: "legacy", URL: "https://example.com/sse", Transport: SSE,
		Headers: map[string]string{"": "v"}, Prefix: "p", Namespace: NamespaceNone, AllowedTools: []string{},
		Auth: &Auth{Grant: "jwt_bearer", ClientID: "c", ClientAuth: "none", SubjectTokenFile: none, AssertionFile: none},
	}, {
		Name: "", Transport: Stdio, URL: "https:///mcp",
	}, {
		Name: "web", Command: "srv", Transport: StreamableHTTP,
		Auth: &Auth{Grant: "password", ClientID: "c", ClientAuth: "basic"},
	}, {
		Name: "none",
	}, {
		Name: "bad", URL: "https://exa mple.com/%zz", Auth: &Auth{Grant: "client_credentials", ClientID: "c", ClientAuth: "post", PrivateKeyFile: none},
	}, {
		Name: "scheme", URL: "example.com/mcp", Auth: &Auth{ClientID: "c", ClientAuth: "magic"},
	}}}
	want := "mcp.json: " + strings.Join([]string{
		`server "a\tb": server name has a control character`,
		`server "a\tb": key "type": "grpc" is not a transport; want stdio, http (or streamable-http) or sse`,
		`server "a\tb": key "auth": only a server reached by url takes OAuth; pass a command server its credentials with env`,
		`server "a\tb": key "auth.clientId": required`,
		`server "a\tb": key "auth.privateKeyFile": required with clientAuth "private_key_jwt"`,
		`server "a\tb": key "auth.issuer": "http://as.example": want the authorization server's https URL, without query or fragment, or "*"`,
		`server "a\tb": key "auth.idpTokenEndpoint": required for an enterprise grant`,
		`server "a\tb": key "auth.idpClientId": required for an enterprise grant`,
		`server "a\tb": key "auth.subjectTokenFile": required for an enterprise grant`,
		`server "a\tb": key "url": set together with "command": a server is either started by command or reached by url`,
		`server "a\tb": key "args": only for a server started by command, and this one has a url`,
		`server "a\tb": key "env": only for a server started by command, and this one has a url`,
		`server "a\tb": key "cwd": only for a server started by command, and this one has a url`,
		`server "a\tb": key "headers": only for a server reached by url, and this one has a command`,
		`server "a\tb": key "env": "A=1" is not a variable name`,
		`server "a\tb": key "env": the value of "B" has a NUL byte`,
		`server "a\tb": key "headers": the value of "Ok" has a line break or NUL byte`,
		`server "a\tb": key "headers": "X Token" is not a header name`,
		`server "a\tb": key "roots": root 2: an empty directory`,
		`server "a\tb": key "roots": "/a" is listed twice`,
		`server "a\tb": key "prefix": "9lives" is not an identifier: use letters, digits and underscores, not starting with a digit`,
		`server "a\tb": key "namespace": "global": want "server" or "none" (or set "prefix")`,
		`server "a\tb": key "allowedTools": an empty tool name`,
		`server "a\tb": key "allowedTools": "a" is listed twice`,
		`server "a\tb": key "disabledTools": an empty tool name`,
		`server "a\tb": key "disabledTools": "a" is also in allowedTools`,
		`server "a\tb": key "timeout": negative (-1s): connecting is always bounded; leave the key out for the default`,
		`server "a\tb": key "maxDescription": negative (-1): descriptions are always bounded; leave the key out for the default`,
		`server "legacy": key "auth": the legacy SSE transport cannot run an OAuth flow; use streamable HTTP`,
		`server "legacy": key "auth.assertionFile": cannot read the file: GONE`,
		`server "legacy": key "headers": "" is not a header name`,
		`server "legacy": key "namespace": set together with "prefix", which already names the namespace`,
		`server "legacy": key "allowedTools": empty: the server would offer no tool; leave the key out for all of them, or set "disabled": true`,
		`server "": empty server name`,
		`key "transport": "stdio" is for a server started by command, and this one has a url`,
		`key "url": no host`,
		`server "web": key "transport": "streamable_http" is for a server reached by url, and this one has a command`,
		`server "web": key "auth": only a server reached by url takes OAuth; pass a command server its credentials with env`,
		`server "web": key "auth.clientSecret": required with clientAuth "basic"`,
		`server "web": key "auth.grant": "password": want client_credentials, jwt_bearer or enterprise (an interactive authorization-code flow is for a host with a user: see mcptool/oauth)`,
		`server "none": key "command": missing: set "command" to start the server, or "url" to reach it`,
		`server "bad": key "auth.clientSecret": required with clientAuth "post"`,
		`server "bad": key "auth.privateKeyFile": cannot read the file: GONE`,
		`server "bad": key "url": not a valid URL`,
		`server "scheme": key "auth.clientAuth": "magic": want basic, post, private_key_jwt or none`,
		`server "scheme": key "auth.grant": required: client_credentials, jwt_bearer or enterprise`,
		`server "scheme": key "url": scheme "": want http or https`,
	}, "\nmcp.json: ")
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate: nil")
	}
	_, gone := os.Stat(none)
	got := strings.ReplaceAll(err.Error(), errors.Unwrap(gone).Error(), "GONE")
	if got != want {
		t.Errorf("Validate says\n%s\nwant\n%s", got, want)
	}
}
