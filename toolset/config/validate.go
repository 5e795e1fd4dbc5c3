package config

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/near"
)

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
		if d := near.EditDistance(n, norm(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist > 1 && utf8.RuneCountInString(n) <= 4 {
		return ""
	}
	return best
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
	// File is the config file's path as [Load] was given it; empty for a
	// config not read from a file.
	File string
}

// String formats the problem as file: server "name": key "key": message.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File + ": ")
	}
	if p.Server != "" || p.Key == "" {
		fmt.Fprintf(&b, "server %q: ", p.Server)
	}
	if p.Key != "" {
		fmt.Fprintf(&b, "key %q: ", p.Key)
	}
	b.WriteString(p.Message)
	return b.String()
}

// An InvalidError lists every problem [Config.Validate] found, so that one
// run shows everything to fix.
type InvalidError struct {
	// Problems come server by server in the order of the file, except
	// that server entries which are not objects at all come first.
	Problems []Problem
}

// Error returns one line per problem.
func (e *InvalidError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// Validate reports every problem of the config at once, as a
// *[InvalidError]: what parsing found (unknown keys, values of the wrong
// type, variables that are not set) and what the settings get wrong
// together, each naming the file the config was read from. It returns nil
// for a config that is fit to start.
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
	for i := range problems {
		problems[i].File = cmp.Or(problems[i].File, c.file)
	}
	return &InvalidError{Problems: problems}
}

// check returns what is wrong with the server's fields, asking each of
// serverChecks in turn, so that the problems come in one order.
func (s Server) check() []Problem {
	var problems []Problem
	problem := func(key, format string, args ...any) {
		problems = append(problems, Problem{Server: s.Name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	for _, c := range serverChecks {
		c(s, problem)
	}
	return problems
}

// A problemFunc says a problem of the file key key.
type problemFunc = func(key, format string, args ...any)

// serverChecks are the checks of a server's fields, each of one field or
// one concern, in the order their problems are said.
var serverChecks = []func(Server, problemFunc){
	Server.checkName,
	Server.checkTransport,
	Server.checkAuth,
	Server.checkReach,
	Server.checkOtherTransport,
	Server.checkEnv,
	Server.checkHeaders,
	Server.checkRoots,
	Server.checkNamespace,
	Server.checkTools,
	Server.checkBounds,
}

func (s Server) checkName(problem problemFunc) {
	switch {
	case s.Name == "":
		problem("", "empty server name")
	case strings.ContainsFunc(s.Name, unicode.IsControl):
		problem("", "server name has a control character")
	}
}

// checkTransport checks that the transport the file names fits how the
// server is reached; the problem names the key the file used.
func (s Server) checkTransport(problem problemFunc) {
	key := cmp.Or(s.transportKey, "transport")
	stdio, remote := s.Command != "", s.URL != ""
	switch s.Transport {
	case "":
	case Stdio:
		if remote && !stdio {
			problem(key, `"stdio" is for a server started by command, and this one has a url`)
		}
	case StreamableHTTP, SSE:
		if stdio && !remote {
			problem(key, "%q is for a server reached by url, and this one has a command", s.Transport)
		}
	default:
		problem(key, "%q is not a transport; want stdio, http (or streamable-http) or sse", s.Transport)
	}
}

// checkAuth checks that the server can run an OAuth flow, then the entry.
func (s Server) checkAuth(problem problemFunc) {
	if s.Auth == nil {
		return
	}
	switch {
	case s.Command != "":
		problem("auth", "only a server reached by url takes OAuth; pass a command server its credentials with env")
	case s.Transport == SSE:
		problem("auth", "the legacy SSE transport cannot run an OAuth flow; use streamable HTTP")
	}
	s.Auth.check(problem)
}

// checkReach checks that the server is either started by command or
// reached by an http or https URL.
func (s Server) checkReach(problem problemFunc) {
	switch stdio, remote := s.Command != "", s.URL != ""; {
	case stdio && remote:
		problem("url", `set together with "command": a server is either started by command or reached by url`)
	case !stdio && !remote:
		problem("command", `missing: set "command" to start the server, or "url" to reach it`)
	case remote:
		s.checkURL(problem)
	}
}

// checkURL never quotes the URL: it may carry a token.
func (s Server) checkURL(problem problemFunc) {
	u, err := url.Parse(s.URL)
	switch {
	case err != nil:
		problem("url", "not a valid URL")
	case u.Scheme != "http" && u.Scheme != "https":
		problem("url", "scheme %q: want http or https", u.Scheme)
	case u.Host == "":
		problem("url", "no host")
	}
}

// checkOtherTransport refuses the keys of the other transport: args, env
// and cwd are for a server started by command, headers for one reached by
// url.
func (s Server) checkOtherTransport(problem problemFunc) {
	if s.URL != "" {
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
	if s.Command != "" && len(s.Headers) > 0 {
		problem("headers", "only for a server reached by url, and this one has a command")
	}
}

func (s Server) checkEnv(problem problemFunc) {
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		switch {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			problem("env", "%q is not a variable name", k)
		case strings.ContainsRune(s.Env[k], 0):
			problem("env", "the value of %q has a NUL byte", k)
		}
	}
}

func (s Server) checkHeaders(problem problemFunc) {
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		switch {
		case k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r == ':' || r >= 0x7f }):
			problem("headers", "%q is not a header name", k)
		case strings.ContainsAny(s.Headers[k], "\r\n\x00"):
			problem("headers", "the value of %q has a line break or NUL byte", k)
		}
	}
}

func (s Server) checkRoots(problem problemFunc) {
	for i, dir := range s.Roots {
		switch {
		case dir == "":
			problem("roots", "root %d: an empty directory", i+1)
		case slices.Contains(s.Roots[:i], dir):
			problem("roots", "%q is listed twice", dir)
		}
	}
}

// checkNamespace checks the prefix, and the namespace, which a prefix
// already names.
func (s Server) checkNamespace(problem problemFunc) {
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
}

// checkTools checks the allow list, then the tools disabled, which the
// allow list must not name.
func (s Server) checkTools(problem problemFunc) {
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
}

// checkBounds refuses a negative bound where no bound is not an option.
func (s Server) checkBounds(problem problemFunc) {
	if s.Timeout < 0 {
		problem("timeout", "negative (%v): connecting is always bounded; leave the key out for the default", s.Timeout)
	}
	if s.MaxDescription < 0 {
		problem("maxDescription", "negative (%d): descriptions are always bounded; leave the key out for the default", s.MaxDescription)
	}
}
