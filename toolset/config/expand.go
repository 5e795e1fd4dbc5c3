package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// expand replaces variable references in the fields that may hold them. A
// field with a reference that cannot be resolved is left as written, and
// the problem is kept unless the server is disabled.
func (s *Server) expand(lookup func(string) (string, bool)) {
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
	for i := range s.Roots {
		field("roots", fmt.Sprintf("root %d: ", i+1), &s.Roots[i])
	}
	field("url", "", &s.URL)
	mapField("headers", s.Headers)
	if s.Auth != nil {
		fields := s.Auth.fields()
		for _, key := range slices.Sorted(maps.Keys(fields)) {
			field(key, "", fields[key])
		}
	}
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
