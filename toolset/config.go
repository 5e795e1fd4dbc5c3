package toolset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A Config is a set of MCP servers as a config file describes them. Build it
// with [Load] or [Parse], or by hand, and call [Config.Validate] before use:
// parsing accepts a file with mistakes so that Validate can report them all
// at once.
type Config struct {
	// Servers are the configured servers, in the order the file lists them.
	Servers []ServerConfig

	// problems are mistakes parsing found that no field can show (a server
	// entry that is not an object); Validate reports them.
	problems []Problem
}

// A Namespace says how the tools of a server are named among those of the
// other servers. Set [ServerConfig.Prefix] instead for a namespace of your
// own choosing; [ServerConfig.ToolPrefix] gives the result.
type Namespace string

// The namespaces. The zero value is [NamespaceServer].
const (
	// NamespaceServer puts the server's name before each tool name, so that
	// two servers can both offer a "search". It is the default.
	NamespaceServer Namespace = "server"
	// NamespaceNone keeps the server's own tool names, for a host that wants
	// short names and knows they do not collide.
	NamespaceNone Namespace = "none"
)

// A ServerConfig is one server of a [Config]: a command to start (stdio) or a
// URL to reach (streamable HTTP or SSE), and how much of it to use.
//
// Its String and GoString methods, and its log value, show the names of
// environment variables and headers but never their values, nor the
// command's arguments, nor a URL's credentials, path or query, since any of
// them may carry a secret.
type ServerConfig struct {
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

	// URL reaches the server over HTTP; only http and https are accepted.
	URL string
	// Headers are sent with every HTTP request (an Authorization header,
	// say).
	Headers map[string]string

	// Transport is the file's "type" (or "transport"), normalized to an
	// [mcptool.Transport]: "stdio"; "http", "streamable-http",
	// "streamable_http" and "streamableHttp" become [mcptool.StreamableHTTP];
	// "sse" is [mcptool.SSE]. Empty leaves the choice to mcptool: stdio for a
	// command, and for a URL streamable HTTP unless its path ends in /sse.
	Transport mcptool.Transport

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
	// handshake and the tool listing. Zero means
	// [mcptool.DefaultConnectTimeout].
	Timeout time.Duration
	// CallTimeout bounds each request, a tool call say. Zero means
	// [mcptool.DefaultRequestTimeout].
	CallTimeout time.Duration

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
		return nil, fmt.Errorf("toolset: %w", err)
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
// "disabledTools", "required", "disabled", "timeout" and "callTimeout". A
// timeout is a Go duration string ("30s", "1m30s") or a number of seconds
// (30, 2.5). Keys are matched exactly; a null value is the same as no key.
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

// The keys of a server entry, in the order of [ServerConfig]'s fields;
// unknown keys are matched against them for a suggestion.
var serverKeys = []string{
	"command", "args", "env", "cwd", "url", "headers", "type", "transport",
	"prefix", "namespace", "allowedTools", "disabledTools", "required",
	"disabled", "timeout", "callTimeout",
}

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
	where := "toolset: "
	if source != "" {
		where += source + ": "
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
	c := &Config{Servers: make([]ServerConfig, 0, len(entries))}
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

// An entry is one key and its value, in the order of the text.
type entry struct {
	key   string
	value json.RawMessage
}

// objectEntries returns the members of a JSON object in their order, which
// decoding into a map would lose. The text must be well-formed.
func objectEntries(data []byte) ([]entry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []entry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var e entry
		e.key, _ = tok.(string)
		if err := dec.Decode(&e.value); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// syntaxError places a JSON syntax error at its line and column, counted
// from 1, the column in characters.
func syntaxError(data []byte, source string, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("toolset: %w", err)
	}
	// Offset counts the bytes read, the offending one included.
	i := min(max(int(se.Offset)-1, 0), len(data))
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	line := bytes.Count(data[:i], []byte("\n")) + 1
	col := utf8.RuneCount(data[start:i]) + 1
	if source != "" {
		return fmt.Errorf("toolset: %s:%d:%d: %w", source, line, col, err)
	}
	return fmt.Errorf("toolset: line %d, column %d: %w", line, col, err)
}

// parseServer reads one server entry, keeping its mistakes in the result's
// problems. It reports false when the entry is not an object at all.
func parseServer(name string, data json.RawMessage) (ServerConfig, bool) {
	s := ServerConfig{Name: name}
	entries, err := objectEntries(data)
	if err != nil {
		return s, false
	}
	problem := func(key, format string, args ...any) {
		s.problems = append(s.problems, Problem{Server: name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	transports := map[string]string{}
	for _, e := range entries {
		if seen[e.key] {
			problem(e.key, "set twice")
			continue
		}
		seen[e.key] = true
		if string(e.value) == "null" {
			continue
		}
		var want string
		switch e.key {
		case "command":
			want = decode(e.value, &s.Command, "a string")
		case "args":
			want = decode(e.value, &s.Args, "an array of strings")
		case "env":
			want = decode(e.value, &s.Env, "an object of strings")
		case "cwd":
			want = decode(e.value, &s.Dir, "a string")
		case "url":
			want = decode(e.value, &s.URL, "a string")
		case "headers":
			want = decode(e.value, &s.Headers, "an object of strings")
		case "type", "transport":
			var t string
			want = decode(e.value, &t, "a string")
			transports[e.key] = t
		case "prefix":
			want = decode(e.value, &s.Prefix, "a string")
		case "namespace":
			want = decode(e.value, &s.Namespace, `"server" or "none"`)
		case "allowedTools":
			want = decode(e.value, &s.AllowedTools, "an array of tool names")
		case "disabledTools":
			want = decode(e.value, &s.DisabledTools, "an array of tool names")
		case "required":
			want = decode(e.value, &s.Required, "true or false")
		case "disabled":
			want = decode(e.value, &s.Disabled, "true or false")
		case "timeout":
			want = duration(e.value, &s.Timeout, mcptool.DefaultConnectTimeout)
		case "callTimeout":
			want = duration(e.value, &s.CallTimeout, mcptool.DefaultRequestTimeout)
		default:
			if k := suggest(e.key, serverKeys); k != "" {
				problem(e.key, "unknown key; did you mean %q?", k)
			} else {
				problem(e.key, "unknown key")
			}
		}
		if want != "" {
			problem(e.key, "want %s", want)
		}
	}
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

// decode decodes data into *dst, leaving it unchanged and returning what was
// wanted if data is of another type. The message never quotes the value.
func decode[T any](data json.RawMessage, dst *T, want string) string {
	var v T
	if json.Unmarshal(data, &v) != nil {
		return want
	}
	*dst = v
	return ""
}

// duration decodes a timeout: a Go duration string, or a number of seconds
// as other clients write it. A negative one is kept for Validate to report;
// zero is refused here, since a reader could take it for "no limit" as well
// as for the default.
func duration(data json.RawMessage, dst *time.Duration, def time.Duration) string {
	const want = `a duration such as "30s" or a number of seconds`
	var d time.Duration
	if data[0] == '"' {
		var s string
		if json.Unmarshal(data, &s) != nil {
			return want
		}
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return want
		}
	} else {
		var secs float64
		if json.Unmarshal(data, &secs) != nil {
			return want
		}
		if math.Abs(secs) >= math.MaxInt64/float64(time.Second) {
			return want + " (this one is too large)"
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d == 0 {
		return fmt.Sprintf("%s above zero; leave the key out for the default (%v)", want, def)
	}
	*dst = d
	return ""
}

// normalizeTransport maps the names clients use for a transport to
// mcptool's; an unknown name is returned as it is, for Validate to report.
func normalizeTransport(name string) mcptool.Transport {
	switch strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name)) {
	case "stdio":
		return mcptool.Stdio
	case "http", "streamablehttp":
		return mcptool.StreamableHTTP
	case "sse":
		return mcptool.SSE
	}
	return mcptool.Transport(name)
}

// expand replaces variable references in the fields that may hold them. A
// field with a reference that cannot be resolved is left as written, and
// the problem is kept unless the server is disabled.
func (s *ServerConfig) expand(lookup func(string) (string, bool)) {
	field := func(key, where string, p *string) {
		v, msg := expand(*p, lookup)
		if msg == "" {
			*p = v
			return
		}
		s.unresolved = append(s.unresolved, key)
		if !s.Disabled {
			s.problems = append(s.problems, Problem{Server: s.Name, Key: key, Message: where + msg})
		}
	}
	mapField := func(key string, m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			v := m[k]
			field(key, fmt.Sprintf("%q: ", k), &v)
			m[k] = v
		}
	}
	field("command", "", &s.Command)
	for i := range s.Args {
		field("args", fmt.Sprintf("argument %d: ", i+1), &s.Args[i])
	}
	mapField("env", s.Env)
	field("cwd", "", &s.Dir)
	field("url", "", &s.URL)
	mapField("headers", s.Headers)
}

// expand replaces the references in s (see [Loader.Parse]). On failure it
// returns why, naming the reference but no value.
func expand(s string, lookup func(string) (string, bool)) (string, string) {
	if !strings.Contains(s, "$") {
		return s, ""
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		b.WriteString(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "$${"):
			b.WriteString("${")
			s = s[3:]
		case strings.HasPrefix(s, "${"):
			end := strings.IndexByte(s, '}')
			if end < 0 {
				return "", "${ without a closing }"
			}
			v, msg := resolve(s[2:end], lookup)
			if msg != "" {
				return "", msg
			}
			b.WriteString(v)
			s = s[end+1:]
		default:
			b.WriteByte('$')
			s = s[1:]
		}
	}
}

// resolve returns the value of one reference, the text between ${ and }.
func resolve(ref string, lookup func(string) (string, bool)) (string, string) {
	name, def, hasDef := strings.Cut(ref, ":-")
	// What is not a name is never quoted: it may be part of a secret that
	// merely contains "${".
	const notName = "a ${...} that is not a variable name (write a literal ${ as $${)"
	if kind, rest, ok := strings.Cut(name, ":"); ok {
		switch {
		case kind == "env":
			name = rest
		case kind == "input":
			return "", fmt.Sprintf("${input:%s} asks the user for a value, which a config file cannot do; use ${env:NAME}", rest)
		case isIdentifier(kind):
			return "", fmt.Sprintf("${%s:...} is not supported; use ${NAME} or ${env:NAME}", kind)
		default:
			return "", notName
		}
	}
	if !isIdentifier(name) {
		return "", notName
	}
	v, ok := lookup(name)
	if hasDef && v == "" {
		return def, ""
	}
	if !ok {
		return "", fmt.Sprintf("variable %s is not set", name)
	}
	return v, ""
}

// isIdentifier reports whether s is letters, digits and underscores, not
// starting with a digit: a variable name, and a safe start for a tool name.
func isIdentifier(s string) bool {
	for i, r := range s {
		if r != '_' && !isASCIILetter(r) && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// suggest returns the key of known that key was probably meant to be, or "".
// Case, underscores and hyphens do not count ("allowed_tools" is
// "allowedTools"), and otherwise a key may be one edit away, two when it is
// longer than four characters.
func suggest(key string, known []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
	}
	n := norm(key)
	if k, ok := keyAliases[n]; ok && slices.Contains(known, k) {
		return k
	}
	if len(n) > 64 {
		return "" // nothing is that long, and distance is quadratic
	}
	best, bestDist := "", 3
	for _, k := range known {
		if norm(k) == n {
			return k
		}
		if d := editDistance(n, norm(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist > 1 && utf8.RuneCountInString(n) <= 4 {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours each cost one,
// so "tpye" is one edit from "type".
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// A Problem is one mistake in a config.
type Problem struct {
	// Server is the server's name; empty for a problem of the whole file.
	Server string
	// Key is the file key at fault ("url", "env"), or empty for the server
	// entry as a whole.
	Key string
	// Message says what is wrong. It never quotes the value of an
	// environment variable, a header, an argument or a URL.
	Message string
}

// String formats the problem as server "name": key "key": message.
func (p Problem) String() string {
	var b strings.Builder
	if p.Server != "" || p.Key == "" {
		fmt.Fprintf(&b, "server %q: ", p.Server)
	}
	if p.Key != "" {
		fmt.Fprintf(&b, "key %q: ", p.Key)
	}
	b.WriteString(p.Message)
	return b.String()
}

// A ValidationError lists every problem [Config.Validate] found, so that one
// run shows everything to fix.
type ValidationError struct {
	// Problems come server by server in the order of the file, except
	// that server entries which are not objects at all come first.
	Problems []Problem
}

// Error returns one line per problem.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "toolset: " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Validate reports every problem of the config at once, as a
// *[ValidationError]: what parsing found (unknown keys, values of the wrong
// type, variables that are not set) and what the settings get wrong
// together. It returns nil for a config that is fit to start.
func (c *Config) Validate() error {
	problems := slices.Clone(c.problems)
	byName := map[string]bool{}
	byPrefix := map[string]string{}
	for _, s := range c.Servers {
		problems = append(problems, s.problems...)
		if byName[s.Name] {
			problems = append(problems, Problem{Server: s.Name, Message: "defined more than once"})
		}
		byName[s.Name] = true
		// A key parsing found at fault is not judged again: a URL left as
		// written because its variable is unset is not also a bad URL.
		for _, p := range s.check() {
			if !slices.Contains(s.unresolved, p.Key) && !slices.ContainsFunc(s.problems, func(q Problem) bool { return q.Key == p.Key }) {
				problems = append(problems, p)
			}
		}
		if p := s.ToolPrefix(); p != "" && !s.Disabled {
			if other, ok := byPrefix[p]; ok && other != s.Name {
				problems = append(problems, Problem{Server: s.Name, Key: "prefix",
					Message: fmt.Sprintf("its tools would be named like those of server %q (prefix %q); set another prefix", other, p)})
			}
			byPrefix[p] = s.Name
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: problems}
}

// check returns what is wrong with the server's fields.
func (s ServerConfig) check() []Problem {
	var problems []Problem
	problem := func(key, format string, args ...any) {
		problems = append(problems, Problem{Server: s.Name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if s.Name == "" {
		problem("", "empty server name")
	} else if strings.ContainsFunc(s.Name, unicode.IsControl) {
		problem("", "server name has a control character")
	}

	stdio, remote := s.Command != "", s.URL != ""
	transportKey := s.transportKey
	if transportKey == "" {
		transportKey = "transport"
	}
	switch s.Transport {
	case "":
	case mcptool.Stdio:
		if remote && !stdio {
			problem(transportKey, `"stdio" is for a server started by command, and this one has a url`)
		}
	case mcptool.StreamableHTTP, mcptool.SSE:
		if stdio && !remote {
			problem(transportKey, "%q is for a server reached by url, and this one has a command", s.Transport)
		}
	default:
		problem(transportKey, "%q is not a transport; want stdio, http (or streamable-http) or sse", s.Transport)
	}
	switch {
	case stdio && remote:
		problem("url", `set together with "command": a server is either started by command or reached by url`)
	case !stdio && !remote:
		problem("command", `missing: set "command" to start the server, or "url" to reach it`)
	case remote:
		// The URL itself is never quoted: it may carry a token.
		if u, err := url.Parse(s.URL); err != nil {
			problem("url", "not a valid URL")
		} else if u.Scheme != "http" && u.Scheme != "https" {
			problem("url", "scheme %q: want http or https", u.Scheme)
		} else if u.Host == "" {
			problem("url", "no host")
		}
	}
	if remote {
		const msg = "only for a server started by command, and this one has a url"
		if len(s.Args) > 0 {
			problem("args", msg)
		}
		if len(s.Env) > 0 {
			problem("env", msg)
		}
		if s.Dir != "" {
			problem("cwd", msg)
		}
	}
	if stdio && len(s.Headers) > 0 {
		problem("headers", "only for a server reached by url, and this one has a command")
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			problem("env", "%q is not a variable name", k)
		case strings.ContainsRune(s.Env[k], 0):
			problem("env", "the value of %q has a NUL byte", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		switch {
		case k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r == ':' || r >= 0x7f }):
			problem("headers", "%q is not a header name", k)
		case strings.ContainsAny(s.Headers[k], "\r\n\x00"):
			problem("headers", "the value of %q has a line break or NUL byte", k)
		}
	}

	if s.Prefix != "" && !isIdentifier(s.Prefix) {
		problem("prefix", "%q is not an identifier: use letters, digits and underscores, not starting with a digit", s.Prefix)
	}
	switch s.Namespace {
	case "", NamespaceServer, NamespaceNone:
		if s.Namespace != "" && s.Prefix != "" {
			problem("namespace", `set together with "prefix", which already names the namespace`)
		}
	default:
		problem("namespace", `%q: want "server" or "none" (or set "prefix")`, s.Namespace)
	}

	if s.AllowedTools != nil && len(s.AllowedTools) == 0 {
		problem("allowedTools", `empty: the server would offer no tool; leave the key out for all of them, or set "disabled": true`)
	}
	allowed := map[string]bool{}
	for _, name := range s.AllowedTools {
		switch {
		case name == "":
			problem("allowedTools", "an empty tool name")
		case allowed[name]:
			problem("allowedTools", "%q is listed twice", name)
		}
		allowed[name] = true
	}
	for _, name := range s.DisabledTools {
		switch {
		case name == "":
			problem("disabledTools", "an empty tool name")
		case allowed[name]:
			problem("disabledTools", "%q is also in allowedTools", name)
		}
	}

	if s.Timeout < 0 {
		problem("timeout", "negative (%v)", s.Timeout)
	}
	if s.CallTimeout < 0 {
		problem("callTimeout", "negative (%v)", s.CallTimeout)
	}
	return problems
}

// ToolPrefix returns what goes before the names of the server's tools to
// keep them apart from other servers' tools: Prefix if set, else the
// server's name, or "" for [NamespaceNone]. A server name need not be an
// identifier ("brave-search"); making names acceptable to a model vendor is
// left to whoever joins them.
func (s ServerConfig) ToolPrefix() string {
	switch {
	case s.Prefix != "":
		return s.Prefix
	case s.Namespace == NamespaceNone:
		return ""
	}
	return s.Name
}

// Options returns the [mcptool.Option] values the server's settings make:
// its name, transport, headers, environment, working directory, allowed
// tools ([mcptool.WithAllowedTools]), disabled tools (as a
// [mcptool.WithToolFilter]) and timeouts. Settings a provider would refuse
// are passed on, so that Connect says so; call [Config.Validate] first to
// hear of them all at once. A [mcptool.WithToolFilter] added after these
// replaces the disabled tools' filter.
func (s ServerConfig) Options() []mcptool.Option {
	opts := []mcptool.Option{mcptool.WithName(s.Name)}
	if s.Transport != "" {
		opts = append(opts, mcptool.WithTransport(s.Transport))
	}
	if len(s.Headers) > 0 {
		opts = append(opts, mcptool.WithHeaders(s.Headers))
	}
	if len(s.Env) > 0 {
		opts = append(opts, mcptool.WithEnv(s.Env))
	}
	if s.Dir != "" {
		opts = append(opts, mcptool.WithDir(s.Dir))
	}
	if s.AllowedTools != nil {
		opts = append(opts, mcptool.WithAllowedTools(s.AllowedTools...))
	}
	if len(s.DisabledTools) > 0 {
		// A set of its own, so a later change to the config does not reach
		// the provider.
		off := make(map[string]bool, len(s.DisabledTools))
		for _, name := range s.DisabledTools {
			off[name] = true
		}
		opts = append(opts, mcptool.WithToolFilter(func(name string) bool { return !off[name] }))
	}
	if s.Timeout > 0 {
		opts = append(opts, mcptool.WithConnectTimeout(s.Timeout))
	}
	if s.CallTimeout > 0 {
		opts = append(opts, mcptool.WithRequestTimeout(s.CallTimeout))
	}
	return opts
}

// Provider returns an unconnected [mcptool.Provider] for the server:
// [mcptool.FromCommand] for a command, else [mcptool.FromURL], with
// [ServerConfig.Options] followed by opts (a logger, say), which therefore
// win.
func (s ServerConfig) Provider(opts ...mcptool.Option) *mcptool.Provider {
	all := append(s.Options(), opts...)
	if s.Command != "" {
		return mcptool.FromCommand(s.Command, s.Args, all...)
	}
	return mcptool.FromURL(s.URL, all...)
}

// String describes the server without a secret: see [ServerConfig].
func (s ServerConfig) String() string {
	parts := []string{fmt.Sprintf("server %q", s.Name)}
	add := func(key, value string) { parts = append(parts, key+" "+value) }
	if s.Command != "" {
		add("command", fmt.Sprintf("%q", s.Command))
	}
	if len(s.Args) > 0 {
		add("args", "["+strings.TrimSuffix(strings.Repeat("… ", len(s.Args)), " ")+"]")
	}
	if len(s.Env) > 0 {
		add("env", "{"+maskedMap(s.Env, ": ", ", ")+"}")
	}
	if s.Dir != "" {
		add("cwd", fmt.Sprintf("%q", s.Dir))
	}
	if s.URL != "" {
		add("url", redactURL(s.URL))
	}
	if len(s.Headers) > 0 {
		add("headers", "{"+maskedMap(s.Headers, ": ", ", ")+"}")
	}
	if s.Transport != "" {
		add("transport", string(s.Transport))
	}
	if s.Prefix != "" {
		add("prefix", s.Prefix)
	}
	if s.Namespace != "" {
		add("namespace", string(s.Namespace))
	}
	if s.AllowedTools != nil {
		add("allowedTools", fmt.Sprint(s.AllowedTools))
	}
	if len(s.DisabledTools) > 0 {
		add("disabledTools", fmt.Sprint(s.DisabledTools))
	}
	if s.Required {
		parts = append(parts, "required")
	}
	if s.Disabled {
		parts = append(parts, "disabled")
	}
	if s.Timeout != 0 {
		add("timeout", s.Timeout.String())
	}
	if s.CallTimeout != 0 {
		add("callTimeout", s.CallTimeout.String())
	}
	return strings.Join(parts, " ")
}

// GoString is for %#v, and as careful as String.
func (s ServerConfig) GoString() string {
	var fields []string
	add := func(name, value string) { fields = append(fields, name+":"+value) }
	add("Name", fmt.Sprintf("%q", s.Name))
	if s.Command != "" {
		add("Command", fmt.Sprintf("%q", s.Command))
	}
	if s.Args != nil {
		add("Args", "[]string{"+strings.TrimSuffix(strings.Repeat(`"…", `, len(s.Args)), ", ")+"}")
	}
	if s.Env != nil {
		add("Env", "map[string]string{"+maskedMap(s.Env, ":", ", ")+"}")
	}
	if s.Dir != "" {
		add("Dir", fmt.Sprintf("%q", s.Dir))
	}
	if s.URL != "" {
		add("URL", fmt.Sprintf("%q", redactURL(s.URL)))
	}
	if s.Headers != nil {
		add("Headers", "map[string]string{"+maskedMap(s.Headers, ":", ", ")+"}")
	}
	if s.Transport != "" {
		add("Transport", fmt.Sprintf("%q", s.Transport))
	}
	if s.Prefix != "" {
		add("Prefix", fmt.Sprintf("%q", s.Prefix))
	}
	if s.Namespace != "" {
		add("Namespace", fmt.Sprintf("%q", s.Namespace))
	}
	if s.AllowedTools != nil {
		add("AllowedTools", fmt.Sprintf("%#v", s.AllowedTools))
	}
	if s.DisabledTools != nil {
		add("DisabledTools", fmt.Sprintf("%#v", s.DisabledTools))
	}
	if s.Required {
		add("Required", "true")
	}
	if s.Disabled {
		add("Disabled", "true")
	}
	if s.Timeout != 0 {
		add("Timeout", fmt.Sprintf("%d", s.Timeout))
	}
	if s.CallTimeout != 0 {
		add("CallTimeout", fmt.Sprintf("%d", s.CallTimeout))
	}
	return "toolset.ServerConfig{" + strings.Join(fields, ", ") + "}"
}

// LogValue makes a logger, the JSON handler too, print [ServerConfig.String]
// rather than the fields, which hold secrets.
func (s ServerConfig) LogValue() slog.Value { return slog.StringValue(s.String()) }

// String describes each server without a secret, as [ServerConfig.String]
// does.
func (c Config) String() string {
	parts := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		parts[i] = s.String()
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// GoString is for %#v, and as careful as String.
func (c Config) GoString() string {
	parts := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		parts[i] = s.GoString()
	}
	return "toolset.Config{Servers:[]toolset.ServerConfig{" + strings.Join(parts, ", ") + "}}"
}

// LogValue makes a logger print [Config.String] rather than the fields.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// maskedMap lists the keys of m, sorted, each with "…" for its value.
func maskedMap(m map[string]string, sep, join string) string {
	keys := slices.Sorted(maps.Keys(m))
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%q%s%q", k, sep, "…")
	}
	return strings.Join(keys, join)
}

// redactURL keeps of u its scheme and host: credentials, a path (some
// services put a key in it) and a query may all be secret.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "…"
	}
	out := u.Scheme + "://"
	if u.User != nil {
		out += "…@"
	}
	out += u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		out += "/…"
	}
	return out
}
