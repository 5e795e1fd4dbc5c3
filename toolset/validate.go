package toolset

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
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
		if d := tool.EditDistance(n, norm(k)); d < bestDist {
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

// An InvalidConfigError lists every problem [Config.Validate] found, so that one
// run shows everything to fix.
type InvalidConfigError struct {
	// Problems come server by server in the order of the file, except
	// that server entries which are not objects at all come first.
	Problems []Problem
}

// Error returns one line per problem.
func (e *InvalidConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "toolset: " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Validate reports every problem of the config at once, as a
// *[InvalidConfigError]: what parsing found (unknown keys, values of the wrong
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
	return &InvalidConfigError{Problems: problems}
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
	if s.Auth != nil {
		if stdio {
			problem("auth", "only a server reached by url takes OAuth; pass a command server its credentials with env")
		} else if s.Transport == mcptool.SSE {
			problem("auth", "the legacy SSE transport cannot run an OAuth flow; use streamable HTTP")
		}
		s.Auth.check(problem)
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

	for i, dir := range s.Roots {
		switch {
		case dir == "":
			problem("roots", "root %d: an empty directory", i+1)
		case slices.Contains(s.Roots[:i], dir):
			problem("roots", "%q is listed twice", dir)
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
		problem("timeout", "negative (%v): connecting is always bounded; leave the key out for the default (%v)", s.Timeout, mcptool.DefaultConnectTimeout)
	}
	if s.MaxDescription < 0 {
		problem("maxDescription", "negative (%d): descriptions are always bounded; leave the key out for the default (%d)", s.MaxDescription, mcptool.DefaultMaxDescription)
	}
	return problems
}
