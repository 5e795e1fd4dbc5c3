package cli

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
)

// What a server writes when a variable it needs is missing: a line that
// says so ("API_KEY is not set", "Missing environment variable TOKEN"),
// naming the variable as programs do, in capitals with underscores (or
// without, in a line that speaks of the environment).
var (
	missingWords = regexp.MustCompile(`(?i)not set|not defined|undefined|missing|required|must be (set|provided)|is empty`)
	variableName = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*[A-Z0-9]\b`)
	notVariables = []string{"ERROR", "WARN", "WARNING", "INFO", "DEBUG", "FATAL", "NOTE", "MCP", "HTTP", "HTTPS", "JSON", "URL", "API", "ID", "OK", "ENV", "SDK"}
)

// maxMissing bounds the variables a hint names.
const maxMissing = 4

// missingVariables returns the variables line says are missing, each once.
func missingVariables(line string) []string {
	if !missingWords.MatchString(line) {
		return nil
	}
	env := strings.Contains(strings.ToLower(line), "env")
	var names []string
	for _, v := range variableName.FindAllString(line, -1) {
		if (env || strings.Contains(v, "_")) && !slices.Contains(notVariables, v) && !slices.Contains(names, v) {
			names = append(names, v)
		}
	}
	return names
}

// A stderrWatch passes a stdio server's stderr on (to ours, cleaned, with
// -v; nowhere otherwise) and reads it for the variables the server says it
// lacks that its environment does not set: a variable exported in the
// user's shell does not reach a server, by design, and the command says
// how to pass it. It is safe for concurrent use.
type stderrWatch struct {
	next io.Writer
	set  map[string]bool // the variables the server's environment sets

	mu      sync.Mutex
	part    []byte // the line being written, its first 4 KiB
	missing []string
}

// newStderrWatch watches the stderr of the server sc, passing it on to
// next.
func newStderrWatch(sc config.Server, next io.Writer) *stderrWatch {
	set := map[string]bool{}
	for _, kv := range stdio.MinimalEnv() {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	for name := range sc.Env {
		set[name] = true
	}
	return &stderrWatch{next: next, set: set}
}

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	for rest := p; len(rest) > 0; {
		line, after, complete := bytes.Cut(rest, []byte("\n"))
		w.part = append(w.part, line[:min(len(line), max(4<<10-len(w.part), 0))]...)
		if !complete {
			break
		}
		w.read()
		rest = after
	}
	w.mu.Unlock()
	return w.next.Write(p)
}

// read reads the line written so far.
func (w *stderrWatch) read() {
	w.readLine(string(w.part))
	w.part = w.part[:0]
}

// readLine notes the variables line says are missing that the server's
// environment does not set.
func (w *stderrWatch) readLine(line string) {
	for _, v := range missingVariables(line) {
		if !w.set[v] && !slices.Contains(w.missing, v) && len(w.missing) < maxMissing {
			w.missing = append(w.missing, v)
		}
	}
}

// readStdout reads lines the server wrote to its stdout that are not
// JSON-RPC, as its stderr is read: some servers complain there.
func (w *stderrWatch) readStdout(lines []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range lines {
		w.readLine(l)
	}
}

// variables returns the variables the server said it lacks, its last
// line read even without its newline.
func (w *stderrWatch) variables() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.read()
	return slices.Clone(w.missing)
}

// envHint says how to give a server a variable, naming the variables it
// said it lacks, or "" when it said none and need not be told; server is
// how the hint names it.
func (t *Target) envHint(server string, missing []string, always bool) string {
	if len(missing) == 0 && !always || t.kind == targetDemo || t.kind == targetURL {
		return ""
	}
	how := "--env NAME=value"
	if t.kind == targetConfig {
		how = fmt.Sprintf(`the "env" of server %q in %s`, server, t.source)
	} else if len(missing) > 0 {
		var flags []string
		for _, v := range missing {
			flags = append(flags, "--env "+v+"=value")
		}
		how = strings.Join(flags, " ")
	}
	if len(missing) == 0 {
		return "hint: variables exported in your shell do not reach a server; if it needs one, give it with " + how
	}
	return fmt.Sprintf("hint: server %q says %s %s missing, and variables exported in your shell do not reach a server: give %s with %s",
		server, strings.Join(missing, ", "), plural.Noun(len(missing), "is", "are"), plural.Noun(len(missing), "it", "them"), how)
}
