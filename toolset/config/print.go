package config

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// String describes the server without a secret: see [Server].
func (s Server) String() string {
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
	if len(s.Roots) > 0 {
		add("roots", fmt.Sprintf("%q", s.Roots))
	}
	if s.URL != "" {
		add("url", redact.URL(s.URL))
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
	if s.MaxDescription != 0 {
		add("maxDescription", fmt.Sprint(s.MaxDescription))
	}
	if s.Auth != nil {
		add("auth", s.Auth.String())
	}
	return strings.Join(parts, " ")
}

// GoString is for %#v, and as careful as String.
func (s Server) GoString() string {
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
	if s.Roots != nil {
		add("Roots", fmt.Sprintf("%#v", s.Roots))
	}
	if s.URL != "" {
		add("URL", fmt.Sprintf("%q", redact.URL(s.URL)))
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
	if s.MaxDescription != 0 {
		add("MaxDescription", fmt.Sprintf("%d", s.MaxDescription))
	}
	if s.Auth != nil {
		add("Auth", fmt.Sprintf("%q", s.Auth.String()))
	}
	return "config.Server{" + strings.Join(fields, ", ") + "}"
}

// LogValue makes a logger, the JSON handler too, print [Server.String]
// rather than the fields, which hold secrets.
func (s Server) LogValue() slog.Value { return slog.StringValue(s.String()) }

// String describes each server without a secret, as [Server.String]
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
	return "config.Config{Servers:[]config.Server{" + strings.Join(parts, ", ") + "}}"
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
