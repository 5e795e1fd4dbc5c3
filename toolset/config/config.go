package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// A Config is a set of MCP servers as a config file describes them. Build it
// with [Load] or [Parse], or by hand, and call [Config.Validate] before use:
// parsing accepts a file with mistakes so that Validate can report them all
// at once.
type Config struct {
	// Servers are the configured servers, in the order the file lists them.
	Servers []Server

	// problems are mistakes parsing found that no field can show (a server
	// entry that is not an object); Validate reports them.
	problems []Problem
	// file is the path the config was read from, which its problems name.
	file string
}

// A Namespace says how the tools of a server are named among those of the
// other servers. Set [Server.Prefix] instead for a namespace of your
// own choosing; [Server.ToolPrefix] gives the result.
type Namespace string

// A Transport is how a server is reached, as a config's "type" (or
// "transport") names it.
type Transport string

// The transports. The zero value leaves the choice to the server's other
// keys: stdio for a command; for a URL streamable HTTP, unless its path ends
// in /sse.
const (
	// Stdio is a subprocess speaking MCP on its stdin and stdout.
	Stdio Transport = "stdio"
	// StreamableHTTP is MCP's streamable HTTP transport.
	StreamableHTTP Transport = "streamable_http"
	// SSE is the HTTP+SSE transport of protocol revision 2024-11-05.
	SSE Transport = "sse"
)

// The namespaces. The zero value is [NamespaceServer].
const (
	// NamespaceServer puts the server's name before each tool name, so that
	// two servers can both offer a "search". It is the default.
	NamespaceServer Namespace = "server"
	// NamespaceNone keeps the server's own tool names, for a host that wants
	// short names and knows they do not collide.
	NamespaceNone Namespace = "none"
)

// A Server is one server of a [Config]: a command to start (stdio) or a
// URL to reach (streamable HTTP or SSE), and how much of it to use.
//
// Its String and GoString methods, and its log value, show the names of
// environment variables and headers but never their values, nor the
// command's arguments, nor a URL's credentials, path or query, since any of
// them may carry a secret.
type Server struct {
	// Name is the server's key in the file. Errors and logs name the server
	// by it, and it is the default namespace of its tools.
	Name string

	// Command starts the server as a subprocess speaking MCP on stdio, run
	// directly (no shell) with Args.
	Command string
	// Args are the command's arguments.
	Args []string
	// Env holds variables added to the command's minimal environment (file
	// key "env").
	Env map[string]string
	// Dir is the command's working directory (file key "cwd"); empty means
	// this process's.
	Dir string
	// Roots are the directories the server is told it may work in (file key
	// "roots"), declared as MCP roots (mcptool.Options.Roots); a relative one
	// is taken from this process's working directory. None is declared by
	// default, and only these when set: a server may replace the
	// directories it was started with by its client's roots (the reference
	// filesystem server does), so a root the user did not name could widen
	// what the server was given.
	Roots []string

	// URL reaches the server over HTTP; only http and https are accepted.
	URL string
	// Headers are sent with every HTTP request (an Authorization header,
	// say).
	Headers map[string]string

	// Transport is the file's "type" (or "transport"), normalized:
	// "stdio" is [Stdio]; "http", "streamable-http", "streamable_http" and
	// "streamableHttp" are [StreamableHTTP]; "sse" is [SSE]. Empty leaves
	// the choice to the other keys (see [Transport]).
	Transport Transport

	// Prefix replaces the server's name as the namespace of its tools. It
	// must be an identifier, since it begins every tool name: letters,
	// digits and underscores, not starting with a digit.
	Prefix string
	// Namespace chooses between the server's name and no namespace at all;
	// it cannot be combined with Prefix.
	Namespace Namespace

	// AllowedTools, when not nil, keeps only the named tools. An empty list
	// is refused, since the server would then offer nothing: set Disabled
	// instead.
	AllowedTools []string
	// DisabledTools removes the named tools, for a server whose tools are
	// wanted but for a few.
	DisabledTools []string

	// Required marks a server the set cannot do without: when it cannot
	// start, starting the set should fail, where a server not required is
	// only left out.
	Required bool
	// Disabled keeps the server in the file but out of use: it is checked,
	// but a variable it names need not be set, since it is often disabled
	// precisely because its secret is absent.
	Disabled bool

	// Timeout bounds connecting: starting or reaching the server, the
	// handshake and the tool listing. Zero is the provider's default (60s,
	// mcptool.Limits.Connect); a negative one is refused, since a server
	// that never answers would hold the whole set's start.
	Timeout time.Duration
	// CallTimeout bounds each tool call, restarting while the server reports
	// progress on it (mcptool.Limits.Call). Zero is the provider's default
	// (30s); negative means no bound but the caller's context.
	CallTimeout time.Duration
	// MaxDescription is how many characters of each tool description of
	// the server are kept (mcptool.Limits.Description). Zero is the
	// provider's default (2048); a negative one is refused, since the server
	// could fill every prompt.
	MaxDescription int
	// Auth, if set, is how to obtain the OAuth token an HTTP server asks
	// for (see [Auth]).
	Auth *Auth

	// transportKey is the file key Transport came from ("type" or
	// "transport"), so that a problem names the key the user wrote.
	transportKey string
	// problems are the mistakes parsing found in this server's entry.
	problems []Problem
	// unresolved are the keys holding a reference that could not be
	// expanded, whose values are therefore left as written and not judged.
	unresolved []string
}

// A Loader reads config files. The zero Loader reads variables from the
// process environment; [Load] and [Parse] use it.
type Loader struct {
	// LookupEnv returns the value of the variable a ${VAR} reference names,
	// and whether it is set. Nil means [os.LookupEnv]. Set it to take
	// variables from elsewhere: a test, a secrets store.
	LookupEnv func(name string) (string, bool)
}

// Load reads the config file at path with the zero [Loader]; see
// [Loader.Parse] for the format.
func Load(path string) (*Config, error) { return Loader{}.Load(path) }

// Parse parses a config file with the zero [Loader]; see [Loader.Parse] for
// the format.
func Parse(data []byte) (*Config, error) { return Loader{}.Parse(data) }

// Load reads the config file at path; see [Loader.Parse] for the format. A
// syntax error is reported as path:line:column.
func (l Loader) Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	return l.parse(data, path)
}

// Parse parses a config file in the format Claude Desktop, Cursor and Claude
// Code share:
//
//	{"mcpServers": {"github": {"command": "npx", "args": ["-y", "..."],
//	    "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}}}
//
// or in VS Code's, whose "servers" object holds the same entries and whose
// "inputs" array is accepted and ignored. A file with both "mcpServers" and
// "servers" is refused, as ambiguous; other top-level keys are ignored, since
// Claude Desktop keeps its own settings in the same file.
//
// A server entry has the keys "command", "args", "env", "cwd", "url",
// "headers", and "type" (or "transport"), plus these of mcpbridge:
// "prefix", "namespace" ("server" or "none"), "allowedTools",
// "disabledTools", "required", "disabled", "timeout", "callTimeout" and
// "maxDescription" (characters of each tool description kept). A
// timeout is a Go duration string ("30s", "1m30s") or a number of seconds
// (30, 2.5), read as the field it fills: zero is the default. Keys are matched exactly; a null value is the same as no key.
//
// The string values of command, args, env, cwd, url and headers may refer
// to variables: ${VAR} and ${env:VAR} are replaced by the value of VAR, and
// ${VAR:-default} by default when VAR is unset or empty (the default is
// taken literally). $${ stands for a literal ${, and a $ not followed by {
// is kept as it is. VS Code's ${input:id} needs a prompt, which a config
// file cannot answer, and is refused; so is any other ${prefix:...}.
//
// Parse fails only on what it cannot read: malformed JSON (the error gives
// its line and column), a top level that is not an object, or no server
// object. Every other mistake — an unknown key, a value of the wrong type, a
// variable that is not set — is kept for [Config.Validate] to report along
// with the rest.
func (l Loader) Parse(data []byte) (*Config, error) { return l.parse(data, "") }

// keyAliases maps keys other clients use for what we call otherwise, so an
// unknown key can point to ours though it is not spelt alike.
var keyAliases = map[string]string{
	"serverurl":        "url",
	"dir":              "cwd",
	"workingdirectory": "cwd",
	"environment":      "env",
}

func (l Loader) parse(data []byte, source string) (*Config, error) {
	// Notepad and some editors begin a UTF-8 file with a byte order mark,
	// which JSON does not allow.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	// Checking the whole text first gives a syntax error its position and
	// lets the walk below assume well-formed JSON.
	if err := json.Unmarshal(data, new(json.RawMessage)); err != nil {
		return nil, syntaxError(data, source, err)
	}
	where := ""
	if source != "" {
		where = source + ": "
	}
	top, err := objectEntries(data)
	if err != nil {
		return nil, errors.New(where + "the config is not a JSON object")
	}
	var serversKey string
	var servers json.RawMessage
	var others []string
	for _, e := range top {
		switch {
		case e.key != "mcpServers" && e.key != "servers":
			others = append(others, e.key)
		case serversKey == e.key:
			return nil, fmt.Errorf("%skey %q appears twice", where, e.key)
		case serversKey != "":
			return nil, errors.New(where + `both "mcpServers" and "servers": keep one, since it is unclear which is meant`)
		default:
			serversKey, servers = e.key, e.value
		}
	}
	if serversKey == "" {
		msg := where + `no "mcpServers" or "servers" object`
		for _, k := range others {
			if s := suggest(k, []string{"mcpServers", "servers"}); s != "" {
				msg += fmt.Sprintf(" (is %q meant to be %q?)", k, s)
				break
			}
		}
		return nil, errors.New(msg)
	}
	if string(servers) == "null" {
		return &Config{}, nil
	}
	entries, err := objectEntries(servers)
	if err != nil {
		return nil, fmt.Errorf("%s%q is not an object", where, serversKey)
	}
	lookup := l.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	c := &Config{Servers: make([]Server, 0, len(entries)), file: source}
	for _, e := range entries {
		s, ok := parseServer(e.key, e.value)
		if !ok {
			c.problems = append(c.problems, Problem{Server: e.key, Message: "want an object of settings"})
			continue
		}
		s.expand(lookup)
		c.Servers = append(c.Servers, s)
	}
	return c, nil
}

// syntaxError places a JSON syntax error at its line and column, counted
// from 1, the column in characters.
func syntaxError(data []byte, source string, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	// Offset counts the bytes read, the offending one included.
	i := min(max(int(se.Offset)-1, 0), len(data))
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	line := bytes.Count(data[:i], []byte("\n")) + 1
	col := utf8.RuneCount(data[start:i]) + 1
	if source != "" {
		return fmt.Errorf("%s:%d:%d: %w", source, line, col, err)
	}
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// parseServer reads one server entry, keeping its mistakes in the result's
// problems. It reports false when the entry is not an object at all.
func parseServer(name string, data json.RawMessage) (Server, bool) {
	s := Server{Name: name}
	entries, err := objectEntries(data)
	if err != nil {
		return s, false
	}
	problem := func(key, format string, args ...any) {
		s.problems = append(s.problems, Problem{Server: name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	transports := map[string]string{}
	transport := func(key string) func(json.RawMessage) string {
		return func(data json.RawMessage) string {
			var t string
			want := decode(&t, "a string")(data)
			transports[key] = t
			return want
		}
	}
	// In the order of Server's fields, which a suggestion for an
	// unknown key follows.
	readObject(entries, "", problem, []member{
		{"command", decode(&s.Command, "a string")},
		{"args", decode(&s.Args, "an array of strings")},
		{"env", decode(&s.Env, "an object of strings")},
		{"cwd", decode(&s.Dir, "a string")},
		{"roots", decode(&s.Roots, "an array of directories")},
		{"url", decode(&s.URL, "a string")},
		{"headers", decode(&s.Headers, "an object of strings")},
		{"type", transport("type")},
		{"transport", transport("transport")},
		{"prefix", decode(&s.Prefix, "a string")},
		{"namespace", decode(&s.Namespace, `"server" or "none"`)},
		{"allowedTools", decode(&s.AllowedTools, "an array of tool names")},
		{"disabledTools", decode(&s.DisabledTools, "an array of tool names")},
		{"required", decode(&s.Required, "true or false")},
		{"disabled", decode(&s.Disabled, "true or false")},
		{"timeout", duration(&s.Timeout)},
		{"callTimeout", duration(&s.CallTimeout)},
		{"maxDescription", decode(&s.MaxDescription, "a number of characters")},
		{"auth", func(data json.RawMessage) string {
			s.Auth = parseAuth(data, problem)
			return ""
		}},
	})
	typ, hasType := transports["type"]
	tr, hasTransport := transports["transport"]
	switch {
	case hasType && hasTransport && normalizeTransport(typ) != normalizeTransport(tr):
		problem("transport", "%q disagrees with \"type\" %q", tr, typ)
	case hasType:
		s.Transport, s.transportKey = normalizeTransport(typ), "type"
	case hasTransport:
		s.Transport, s.transportKey = normalizeTransport(tr), "transport"
	}
	return s, true
}

// normalizeTransport maps the names clients use for a transport to
// mcptool's; an unknown name is returned as it is, for Validate to report.
func normalizeTransport(name string) Transport {
	switch strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name)) {
	case "stdio":
		return Stdio
	case "http", "streamablehttp":
		return StreamableHTTP
	case "sse":
		return SSE
	}
	return Transport(name)
}

// ToolPrefix returns what goes before the names of the server's tools to
// keep them apart from other servers' tools: Prefix if set, else the
// server's name, or "" for [NamespaceNone]. A server name need not be an
// identifier ("brave-search"); making names acceptable to a model vendor is
// left to whoever joins them.
func (s Server) ToolPrefix() string {
	switch {
	case s.Prefix != "":
		return s.Prefix
	case s.Namespace == NamespaceNone:
		return ""
	}
	return s.Name
}
