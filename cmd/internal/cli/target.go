package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
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
	logged    bool // a log says how the servers start (serve's): no progress lines
	host      host // hostio.go

	maxDescription    maxDescriptionFlag // --max-description; 0 when not given
	wholeDescriptions bool               // lint: descriptions uncut, to say each cut
	logger            *slog.Logger       // the servers', once started: stderr with -v

	kind   targetKind // what resolve found
	source string     // the config file, for targetConfig
	tokens []string   // the servers sent an Authorization header

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
	fs.Var(t.headers, "header", "send the HTTP header `'NAME: VALUE'` to the server at --url, or at a config's URL (the one --server picks) (repeatable)")
	fs.Var(envFlag{t.env}, "env", "set the environment variable `NAME=VALUE` for the server after --, or a config's command (the one --server picks) (repeatable): it gets no variable of your shell but HOME, PATH and a few more")
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

// AddMaxDescription registers --max-description, for the commands that
// hand tool descriptions on (tools, lint, chat, serve).
func (t *Target) AddMaxDescription(fs *flag.FlagSet) {
	fs.Var(&t.maxDescription, "max-description", fmt.Sprintf("keep at most `N` characters of each tool description, cut at a sentence or word (default %d, or a config server's \"maxDescription\", which this overrides)", mcpclient.DefaultMaxDescription))
}

// descriptionCap is how many characters of the descriptions of server sc
// are kept.
func (t *Target) descriptionCap(sc config.Server) int {
	return cmp.Or(int(t.maxDescription), sc.MaxDescription, mcpclient.DefaultMaxDescription)
}

// maxDescriptionFlag is --max-description: a number of characters, at
// least 1, since descriptions are always bounded.
type maxDescriptionFlag int

func (f *maxDescriptionFlag) String() string {
	if *f == 0 {
		return ""
	}
	return strconv.Itoa(int(*f))
}

func (f *maxDescriptionFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a number of characters, at least 1")
	}
	*f = maxDescriptionFlag(n)
	return nil
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
func (t *Target) resolve(serverCmd []string, s *Streams) (*config.Config, error) {
	cfg, err := t.servers(serverCmd, s)
	if err != nil {
		return nil, err
	}
	if err := t.give(cfg, "--env", t.env, false); err != nil {
		return nil, err
	}
	if err := t.give(cfg, "--header", t.headers, true); err != nil {
		return nil, err
	}
	return cfg, nil
}

// servers is the config the target names, before --env and --header.
func (t *Target) servers(serverCmd []string, s *Streams) (*config.Config, error) {
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
	if t.transport != "" && t.url == "" {
		return nil, Usagef("--transport goes with --url")
	}
	switch {
	case len(serverCmd) > 0:
		t.kind = targetCommand
		return &config.Config{Servers: []config.Server{{
			Name: cmp.Or(t.name, stdio.ServerName(serverCmd[0], serverCmd[1:])), Command: serverCmd[0], Args: serverCmd[1:],
			Required: true, Namespace: config.NamespaceNone,
		}}}, nil
	case t.url != "":
		u, err := url.Parse(t.url)
		if err != nil || u.Host == "" {
			// Not echoed: a URL may carry a key.
			return nil, Usagef("--url: not a URL with a scheme and a host (http://host/path or https://host/path)")
		}
		t.kind = targetURL
		return &config.Config{Servers: []config.Server{{
			Name: cmp.Or(t.name, u.Hostname()), URL: t.url, Transport: config.Transport(t.transport),
			Required: true, Namespace: config.NamespaceNone,
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
		return &config.Config{Servers: []config.Server{{
			Name: cmp.Or(t.name, "demo"), Command: self, Args: []string{"serve-demo", "--notes", notes},
			Required: true, Namespace: config.NamespaceNone,
		}}}, nil
	}
	if t.name != "" {
		return nil, Usagef("--name names a server after -- or at --url; %s names its own", path)
	}
	t.kind, t.source = targetConfig, path
	cfg, err := config.Load(path)
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
		var picked []config.Server
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

// give hands values, the variables of --env or the headers of --header
// (flag), to the one server they can go to: the target's only server in
// use, or the one --server picked, if it is at a URL for a header and
// started by mcpbridge for a variable. They are added to what a config
// gives it, the flag's winning. Values with no such server are refused:
// dropped, they would leave the user believing they applied.
func (t *Target) give(cfg *config.Config, flag string, values map[string]string, atURL bool) error {
	if len(values) == 0 {
		return nil
	}
	var inUse []*config.Server
	var names []string
	for i := range cfg.Servers {
		if !cfg.Servers[i].Disabled {
			inUse = append(inUse, &cfg.Servers[i])
			names = append(names, cfg.Servers[i].Name)
		}
	}
	if len(inUse) != 1 {
		return Usagef("%s goes to one server: pick it with --server (%s has %s)", flag, t.source, strings.Join(names, ", "))
	}
	sc := inUse[0]
	if (sc.URL != "") != atURL {
		what := map[targetKind]string{targetCommand: "a command after --", targetURL: "one at --url", targetDemo: "the bundled demo server"}[t.kind]
		switch {
		case t.kind == targetConfig && atURL:
			return Usagef("%s goes to a server at a URL; server %q of %s is a command", flag, sc.Name, t.source)
		case t.kind == targetConfig:
			return Usagef("%s sets a variable of a server mcpbridge starts; server %q of %s is at a URL", flag, sc.Name, t.source)
		case atURL:
			return Usagef("%s goes to a server at a URL, not to %s", flag, what)
		}
		return Usagef("%s sets a variable of a server mcpbridge starts, not of %s", flag, what)
	}
	to := &sc.Env
	if atURL {
		to = &sc.Headers
	}
	merged := maps.Clone(*to)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, values)
	*to = merged
	return nil
}

// Start resolves the target and starts its servers, showing a line per
// server on s.Err as it becomes ready or fails. A server that did not
// start is said as a person reads it, with its cause and its last words on
// stderr. Close the toolset with [Target.Close].
func (t *Target) Start(ctx context.Context, serverCmd []string, s *Streams) (*catalog.Toolset, *config.Config, error) {
	return t.startWith(ctx, serverCmd, s, toolset.Start)
}

// startWith is Start with launch in place of toolset.Start: what serves the
// set (the gateway) starts it, with the options given. The servers are
// started through the public API, as a user of toolset does; the catalog
// behind it is what the commands need besides (snapshots, raw calls).
func (t *Target) startWith(ctx context.Context, serverCmd []string, s *Streams, launch func(context.Context, *config.Config, *toolset.Options) (*toolset.Toolset, error)) (*catalog.Toolset, *config.Config, error) {
	cfg, err := t.resolve(serverCmd, s)
	if err != nil {
		return nil, nil, err
	}
	for _, sc := range cfg.Servers {
		for k := range sc.Headers {
			if strings.EqualFold(k, "Authorization") {
				t.tokens = append(t.tokens, sc.Name)
			}
		}
	}
	t.host.turns = turnsKey.Value(ctx)
	if err := t.host.applyRoots(cfg); err != nil {
		return nil, nil, err
	}
	host := t.hostOptions(s)
	t.providerOptions(&host)
	logger := slog.New(slog.DiscardHandler)
	if t.verbose {
		logger = slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	t.logger = logger
	p := newProgress(s.Err, t.failure)
	for _, sc := range cfg.Servers {
		if sc.Required {
			// Start's error says why a required server failed.
			p.quiet[sc.Name] = true
		}
	}
	t.errw, t.watches, t.hinted = s.Err, map[string]*stderrWatch{}, map[string]bool{}
	watch := t.watch(serverStderr(s.Err, t.verbose))
	opts := &toolset.Options{
		Vendor: t.Vendor,
		Logger: logger,
		// How the command answers a server, the description's cap, each
		// stdio server's stderr.
		Server: func(sc config.Server) *mcptool.Options {
			o := host
			o.Stderr = watch(sc)
			return &o
		},
	}
	if !t.logged {
		opts.OnStatus = p.update
	}
	pub, err := launch(ctx, cfg, opts)
	if err != nil {
		var (
			invalid *config.InvalidError
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
	ts := handle.Core[catalog.Toolset](pub)
	if !t.logged {
		p.ready(pub.Status())
	}
	return ts, cfg, nil
}

// Logger returns the logger Start gave the servers (stderr with -v, else
// none), for what the command builds on them: the library's own default
// would write to the process's stderr, beside the command's output.
func (t *Target) Logger() *slog.Logger { return cmp.Or(t.logger, slog.New(slog.DiscardHandler)) }

// watch returns the options that give each stdio server a stderrWatch of
// its own, passing its stderr on to next.
func (t *Target) watch(next io.Writer) func(config.Server) io.Writer {
	return func(sc config.Server) io.Writer {
		if sc.Command == "" {
			return nil
		}
		w := newStderrWatch(sc, next)
		t.watched = append(t.watched, sc.Name)
		t.watches[sc.Name] = w
		return w
	}
}

// failure explains why the server name did not start, as the user gave
// it, with a hint at --env (or the config's "env") when it ran and failed
// (but for a crash of its code), or said it lacks a variable.
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
	// A --url without a path is said by mcptool, in the cause. A server
	// that crashed on an error of its code lacks no variable it did not
	// name.
	se := (*stdio.ServerError)(nil)
	crashed := errors.As(err, &se) && se.Crashed
	hint := t.envHint(name, missing, ranAndFailed(err) && !crashed)
	if he := (*mcptool.HTTPError)(nil); errors.As(err, &he) && (he.StatusCode == http.StatusUnauthorized || he.StatusCode == http.StatusForbidden) {
		hint = t.tokenHint(name)
	}
	if se != nil && se.Listens != "" {
		hint = t.urlHint(se.Listens)
	}
	if hint != "" {
		t.hintMu.Lock()
		t.hinted[name] = true
		t.hintMu.Unlock()
	}
	return &startFailure{who: who, err: err, hint: hint, verbose: t.verbose}
}

// tokenHint says how to give the server name, which asked for
// authorization, a bearer token, or that the one given was refused.
func (t *Target) tokenHint(name string) string {
	switch {
	case slices.Contains(t.tokens, name):
		return "hint: it refused the Authorization header given"
	case t.kind == targetConfig:
		return fmt.Sprintf(`hint: if it takes a token, give it with "headers": {"Authorization": "Bearer TOKEN"} in server %q of %s`, name, t.source)
	}
	return `hint: if it takes a token, give it with --header "Authorization: Bearer TOKEN"`
}

// urlHint says how to reach a server that serves MCP over HTTP at u, as
// it said, though it was started for stdio.
func (t *Target) urlHint(u string) string {
	how := "use --url " + u
	if t.kind == targetConfig {
		how = fmt.Sprintf(`give "url": %q in place of "command" in %s`, u, t.source)
	}
	return "hint: give it its stdio flag if it has one (often --stdio), or start it apart and " + how
}

// Close closes the servers, then gives a hint for each stdio server that
// said it lacks a variable its environment does not set, unless its
// failure already did: what it wrote on stderr is all read by then.
func (t *Target) Close(ts *catalog.Toolset) {
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

// NotStarted fails a command whose output covers every configured server
// (tools, info, lint) when one did not start, after the output of the
// others: a check in CI must not pass on a server it never saw. The
// progress lines have said why each failed.
func NotStarted(ts *catalog.Toolset) error {
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
