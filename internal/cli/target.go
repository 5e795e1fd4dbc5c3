package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// defaultConfig is the file used when no target is given.
const defaultConfig = "mcp.json"

// A Target says where a command's servers come from: the flags
// [AddTarget] registers, and the server command after "--". Vendor is whose
// rules the servers' tools follow.
type Target struct {
	url       string
	transport transportFlag
	headers   headers
	env       headers
	config    string
	server    string
	name      string
	Vendor    schema.Vendor // "" for Anthropic's rules, or for a command's own default
	verbose   bool
	apps      bool // the command shows MCP Apps (apps.go)
	host      host // hostio.go

	kind   targetKind // what resolve found
	source string     // the config file, for targetConfig

	// Once started: each stdio server's stderr, watched for variables it
	// lacks, in config order, and the servers already given a hint.
	errw    io.Writer
	watched []string
	watches map[string]*stderrWatch
	hintMu  sync.Mutex
	hinted  map[string]bool
}

// A targetKind is where the servers came from.
type targetKind int

const (
	targetDemo    targetKind = iota // no target: the bundled demo
	targetCommand                   // a command after --
	targetURL                       // --url
	targetConfig                    // --config, or ./mcp.json
)

// AddTarget registers the flags that say where the servers come from.
// Every flag's usage names its value in backquotes: the help prints that
// name instead of flag's "value".
func AddTarget(fs *flag.FlagSet) *Target {
	t := &Target{headers: headers{}, env: headers{}}
	fs.StringVar(&t.url, "url", "", "the server's `URL` (streamable HTTP; SSE if the path ends in /sse)")
	fs.Var(&t.transport, "transport", "force the HTTP `TRANSPORT` of --url: streamable_http or sse")
	fs.Var(t.headers, "header", "send the HTTP header `'NAME: VALUE'` to --url (repeatable)")
	fs.Var(envFlag{t.env}, "env", "set the environment variable `NAME=VALUE` for the server after -- (repeatable): it gets no variable of your shell but HOME, PATH and a few more")
	fs.StringVar(&t.config, "config", "", "an mcpServers / VS Code config `FILE`")
	fs.StringVar(&t.server, "server", "", "with --config, the one server `NAME` to use")
	fs.StringVar(&t.name, "name", "", "the server's `NAME` in messages and tool aliases, for a command after -- or --url (default: what the command runs, or the URL's host)")
	fs.BoolVar(&t.verbose, "v", false, "log what the servers and connections do, on stderr")
	t.host.add(fs)
	return t
}

// AddVendor registers --vendor, for the commands whose output depends on
// the vendor's rules, with def as its default: "" when the command's own
// default (said in usage) applies unless the flag is given.
func (t *Target) AddVendor(fs *flag.FlagSet, def schema.Vendor, usage string) {
	t.Vendor = def
	fs.Var((*vendorFlag)(&t.Vendor), "vendor", usage)
}

// envFlag is a repeatable NAME=value flag.
type envFlag struct{ m map[string]string }

func (envFlag) secret()          {}
func (e envFlag) String() string { return "" }
func (e envFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return errors.New("want NAME=value")
	}
	e.m[k] = val
	return nil
}

func cutHeader(v string) (name, value string, ok bool) {
	name, value, ok = strings.Cut(v, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	return name, value, ok && name != ""
}

// redactValue shows a flag value's shape without its secret part.
func redactValue(v string) string {
	if len(v) > 8 {
		return v[:4] + "…"
	}
	return "…"
}

// resolve turns the target flags and the command after "--" into a config.
func (t *Target) resolve(serverCmd []string, s *Streams) (*toolset.Config, error) {
	given := 0
	for _, set := range []bool{len(serverCmd) > 0, t.url != "", t.config != ""} {
		if set {
			given++
		}
	}
	if given > 1 {
		return nil, Usagef("give one target: a command after --, --url, or --config")
	}
	if t.server != "" && t.config == "" && given > 0 {
		return nil, Usagef("--server picks a server of --config")
	}
	if len(t.headers) > 0 && t.url == "" {
		return nil, Usagef("--header goes with --url")
	}
	if t.transport != "" && t.url == "" {
		return nil, Usagef("--transport goes with --url")
	}
	switch {
	case len(serverCmd) > 0:
		t.kind = targetCommand
		return &toolset.Config{Servers: []toolset.ServerConfig{{
			Name: cmp.Or(t.name, stdio.ServerName(serverCmd[0], serverCmd[1:])), Command: serverCmd[0], Args: serverCmd[1:], Env: t.env,
			Required: true, Namespace: toolset.NamespaceNone,
		}}}, nil
	case t.url != "":
		u, err := url.Parse(t.url)
		if err != nil || u.Host == "" {
			// Not echoed: a URL may carry a key.
			return nil, Usagef("--url: not a URL with a scheme and a host (http://host/path or https://host/path)")
		}
		t.kind = targetURL
		return &toolset.Config{Servers: []toolset.ServerConfig{{
			Name: cmp.Or(t.name, u.Hostname()), URL: t.url, Headers: t.headers, Transport: mcptool.TransportKind(t.transport),
			Required: true, Namespace: toolset.NamespaceNone,
		}}}, nil
	}
	path := t.config
	if path == "" {
		if _, err := os.Stat(defaultConfig); err == nil {
			path = defaultConfig
		}
	}
	if path == "" {
		if t.server != "" {
			return nil, Usagef("--server needs --config (or ./%s)", defaultConfig)
		}
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		// Found here, where the environment is whole: the server gets
		// only the minimal one.
		notes, err := demo.DefaultNotesFile()
		if err != nil {
			return nil, err
		}
		return &toolset.Config{Servers: []toolset.ServerConfig{{
			Name: cmp.Or(t.name, "demo"), Command: self, Args: []string{"serve-demo", "--notes", notes},
			Required: true, Namespace: toolset.NamespaceNone,
		}}}, nil
	}
	if t.name != "" {
		return nil, Usagef("--name names a server after -- or at --url; %s names its own", path)
	}
	t.kind, t.source = targetConfig, path
	cfg, err := toolset.Load(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	if t.config == "" {
		// Found, not given: it runs only if the user trusts it.
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		if err := trustLocal(path, data, s); err != nil {
			return nil, err
		}
	}
	if t.server != "" {
		var picked []toolset.ServerConfig
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
			if s.Name == t.server {
				s.Disabled, s.Required = false, true
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return nil, Usagef("no server %q in %s (it has %s)", t.server, path, strings.Join(names, ", "))
		}
		cfg.Servers = picked
	}
	return cfg, nil
}

// Start resolves the target and starts its servers, showing a line per
// server on s.Err as it becomes ready or fails. A server that did not
// start is said as a person reads it, with its cause and its last words on
// stderr. Close the toolset with [Target.Close].
func (t *Target) Start(ctx context.Context, serverCmd []string, s *Streams) (*toolset.Toolset, *toolset.Config, error) {
	return t.startWith(ctx, serverCmd, s, toolset.Start)
}

// startWith is Start with launch in place of toolset.Start: what serves the
// set (the gateway) starts it, with the options given.
func (t *Target) startWith(ctx context.Context, serverCmd []string, s *Streams, launch func(context.Context, *toolset.Config, ...toolset.Option) (*toolset.Toolset, error)) (*toolset.Toolset, *toolset.Config, error) {
	cfg, err := t.resolve(serverCmd, s)
	if err != nil {
		return nil, nil, err
	}
	if err := t.host.applyRoots(cfg); err != nil {
		return nil, nil, err
	}
	answers := t.hostOptions(s)
	logger := slog.New(slog.DiscardHandler)
	if t.verbose {
		logger = slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	p := newProgress(s.Err, t.failure)
	for _, sc := range cfg.Servers {
		if sc.Required {
			// Start's error says why a required server failed.
			p.quiet[sc.Name] = true
		}
	}
	t.errw, t.watches, t.hinted = s.Err, map[string]*stderrWatch{}, map[string]bool{}
	ts, err := launch(ctx, cfg,
		toolset.WithVendor(t.Vendor),
		toolset.WithLogger(logger),
		toolset.OnStatus(p.update),
		toolset.WithProviderOptions(append(answers, t.providerOptions()...)...),
		toolset.WithServerOptions(t.watch(serverStderr(s.Err, t.verbose))))
	if err != nil {
		var (
			invalid *toolset.InvalidConfigError
			failed  *toolset.StartError
		)
		switch {
		case errors.As(err, &invalid):
			return nil, nil, &exitError{code: exitUsage, err: err}
		case errors.As(err, &failed):
			return nil, nil, t.failure(failed.Server, failed.Err)
		}
		return nil, nil, err
	}
	p.ready(ts.Status())
	return ts, cfg, nil
}

// watch returns the options that give each stdio server a stderrWatch of
// its own, passing its stderr on to next.
func (t *Target) watch(next io.Writer) func(toolset.ServerConfig) []mcptool.Option {
	return func(sc toolset.ServerConfig) []mcptool.Option {
		if sc.Command == "" {
			return nil
		}
		w := newStderrWatch(sc, next)
		t.watched = append(t.watched, sc.Name)
		t.watches[sc.Name] = w
		return []mcptool.Option{mcptool.WithStderr(w)}
	}
}

// failure explains why the server name did not start, as the user gave
// it, with a hint at --env (or the config's "env") when it ran and failed,
// or said it lacks a variable.
func (t *Target) failure(name string, err error) *startFailure {
	who := fmt.Sprintf("server %q", name)
	switch t.kind {
	case targetDemo:
		who = "the demo server"
	case targetConfig:
		who = fmt.Sprintf("server %q of %s", name, t.source)
	}
	var missing []string
	if w := t.watches[name]; w != nil {
		if se := (*stdio.ServerError)(nil); errors.As(err, &se) {
			w.readStdout(se.Stdout)
		}
		missing = w.variables()
	}
	// A --url without a path is said by mcptool, in the cause.
	hint := t.envHint(name, missing, ranAndFailed(err))
	if hint != "" {
		t.hintMu.Lock()
		t.hinted[name] = true
		t.hintMu.Unlock()
	}
	return &startFailure{who: who, err: err, hint: hint, verbose: t.verbose}
}

// Close closes the servers, then gives a hint for each stdio server that
// said it lacks a variable its environment does not set, unless its
// failure already did: what it wrote on stderr is all read by then.
func (t *Target) Close(ts *toolset.Toolset) {
	ts.Close()
	for _, name := range t.watched {
		t.hintMu.Lock()
		hinted := t.hinted[name]
		t.hintMu.Unlock()
		if missing := t.watches[name].variables(); !hinted && len(missing) > 0 {
			fmt.Fprintln(t.errw, untrusted.Line(t.envHint(name, missing, false)))
		}
	}
}

// notStarted fails a command whose output covers every configured server
// (tools, info, lint) when one did not start, after the output of the
// others: a check in CI must not pass on a server it never saw. The
// progress lines have said why each failed.
func notStarted(ts *toolset.Toolset) error {
	var failed []string
	for _, st := range ts.Status() {
		if st.State == mcptool.StateFailed {
			failed = append(failed, fmt.Sprintf("%q", st.Name))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	noun := plural.Noun(len(failed), "server", "servers")
	return &exitError{code: exitTransport, err: fmt.Errorf("%s %s did not start", noun, strings.Join(failed, ", "))}
}

// serverStderr is where servers' own stderr goes: ours, cleaned, with -v,
// else nowhere, so that a command's output is its own.
func serverStderr(w io.Writer, verbose bool) io.Writer {
	if verbose {
		return cleanWriter{w}
	}
	return io.Discard
}

// progress shows the servers starting: one line per server, rewritten in
// place on a terminal, plain lines otherwise.
type progress struct {
	w       io.Writer
	term    bool
	color   bool
	explain func(name string, err error) *startFailure

	mu      sync.Mutex
	started map[string]time.Time
	took    map[string]time.Duration
	done    map[string]bool
	quiet   map[string]bool // servers whose failure is reported otherwise
}

func newProgress(w io.Writer, explain func(name string, err error) *startFailure) *progress {
	return &progress{w: w, term: IsTerminal(w), color: UseColor(w), explain: explain, started: map[string]time.Time{}, took: map[string]time.Duration{}, done: map[string]bool{}, quiet: map[string]bool{}}
}

func (p *progress) update(st toolset.ServerStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch st.State {
	case mcptool.StateConnecting:
		if _, ok := p.started[st.Name]; !ok {
			p.started[st.Name] = time.Now()
			if p.term {
				fmt.Fprintf(p.w, "%s %s: connecting…\n", p.paint(Dim, "·"), untrusted.Line(st.Name))
			}
		}
	case mcptool.StateReady:
		// Said by ready, once the catalog has the server's tools.
		if _, ok := p.took[st.Name]; !ok {
			p.took[st.Name] = p.elapsed(st.Name)
		}
	case mcptool.StateFailed:
		if p.done[st.Name] || p.quiet[st.Name] {
			return
		}
		p.done[st.Name] = true
		_, wasReady := p.took[st.Name]
		if st.Err == nil || wasReady {
			why := "failed"
			if st.Err != nil {
				why = untrusted.Line(st.Err.Error())
			}
			fmt.Fprintf(p.w, "%s %s: %s (%v)\n", p.paint(Red, "✗"), untrusted.Line(st.Name), why, p.elapsed(st.Name))
			return
		}
		f := p.explain(st.Name, st.Err)
		f.who = st.Name + ":"
		lines := f.lines()
		fmt.Fprintf(p.w, "%s %s (%v)\n", p.paint(Red, "✗"), lines[0], p.elapsed(st.Name))
		for _, l := range lines[1:] {
			fmt.Fprintln(p.w, l)
		}
	}
}

// ready says which servers are serving, with their tools, once Start is done.
func (p *progress) ready(all []toolset.ServerStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range all {
		if st.State == mcptool.StateReady && !p.done[st.Name] {
			p.done[st.Name] = true
			fmt.Fprintf(p.w, "%s %s: ready, %s (%v)\n", p.paint(Green, "✓"), untrusted.Line(st.Name), plural.Count(st.Tools, "tool", "tools"), p.took[st.Name])
		}
	}
}

func (p *progress) elapsed(name string) time.Duration {
	if t, ok := p.started[name]; ok {
		return time.Since(t).Round(time.Millisecond)
	}
	return 0
}

func (p *progress) paint(c, s string) string { return Paint(p.color, c, s) }
