package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A Toolset is the servers of a [config.Config], running, as one catalog of tools.
// Build it with [Start], take a [Snapshot] for each turn of a conversation,
// and Close it when done. A Toolset is safe for concurrent use.
type Toolset struct {
	opts    options
	log     *slog.Logger
	tel     *telemetry.Telemetry
	servers []*server // the enabled servers, in config order
	namer   *toolschema.Namer

	mu     sync.Mutex
	owners map[string]pair // namespaced name → the pair that has it
	snap   *Snapshot       // the current catalog; nil when a change made it stale
	gen    chan struct{}   // closed, and replaced, when the catalog changes

	wake      chan struct{} // a server's listing changed
	done      chan struct{} // closed by Close
	worker    sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

type pair struct{ server, tool string }

// A ServerStatus is where one server of a [Toolset] stands, and a
// Quarantine a tool held out of the catalog, and why: toolset's ServerStatus
// and Quarantine, whose docs say each field, with the same fields (toolset
// converts them).
type (
	ServerStatus struct {
		Name  string
		State mcptool.State
		Err   error
		Tools int
	}
	Quarantine struct {
		Server, Tool, Pointer, Message string
	}
)

// String formats q as server "s": tool "t": at /pointer: message.
func (q Quarantine) String() string {
	s := fmt.Sprintf("server %q: tool %q: ", q.Server, q.Tool)
	if q.Pointer != "" {
		s += "at " + q.Pointer + ": "
	}
	return s + q.Message
}

// A StartError says that a required server did not start, failing
// [Start]; Err is why.
type StartError struct {
	// Server is the server's name in the config.
	Server string
	// Err is the error of its Connect.
	Err error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("required server %q did not start: %v", e.Server, e.Err)
}
func (e *StartError) Unwrap() error { return e.Err }

// Start connects every enabled server of cfg at once, each within its own
// connect timeout, and joins their tools into one catalog. It calls
// [config.Config.Validate] first and returns its error.
//
// A server that fails to connect is logged, with its name and error, and
// left out, unless it is Required: then Start cancels the connections still
// being made, closes every server already started, and returns a
// [StartError] naming that server, which wraps its error.
//
// Two servers may not offer a tool under one name, compared after the
// vendor's rewrite (with [config.NamespaceNone], say, get.data and get_data are one
// name for OpenAI). Required servers take their names first, then optional
// ones, in config order: an optional server that claims a taken name is left
// out, its status saying which server has the name, and two required ones
// fail Start, naming both servers and the tool; give one of them a prefix.
// A tool whose name reads as the alias mcp__<server>__<tool> of a server of
// the set is quarantined, as it would shadow that alias.
//
// The catalog's names are the namespaced ones ({prefix}_{tool}, see
// [config.Server.ToolPrefix]) made valid for the vendor of [WithVendor], and
// its schemas are lowered for that vendor; a tool that cannot be, or whose
// output schema cannot be used to check its results ([schema.LintOutput]),
// is held out ([Toolset.Quarantined]), and the rest of its server still serves.
func Start(ctx context.Context, cfg *config.Config, opts ...Option) (*Toolset, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	o.vendor = cmp.Or(o.vendor, schema.Anthropic)
	log := telemetry.Logger(o.logger)
	tel, traced := o.telemetry()
	t := &Toolset{
		opts:   o,
		log:    log,
		tel:    tel,
		namer:  toolschema.NewNamer(toolschema.Vendor(o.vendor)),
		owners: map[string]pair{},
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		gen:    make(chan struct{}),
	}
	for _, sc := range cfg.Servers {
		if sc.Disabled {
			continue
		}
		s := &server{cfg: sc, t: t, pins: map[string]pin{}, refused: map[string]string{}, built: map[string]*toolEntry{}}
		var own *mcptool.Options
		if o.public != nil {
			own = o.public(sc)
		}
		// A server that dies is started again by default; the host's
		// Options come after, so they may say otherwise.
		popts := append([]mcpclient.Option{mcpclient.WithLogger(log), mcpclient.WithReconnect(mcpclient.Reconnect{})}, traced...)
		var more []mcpclient.Option
		for _, fn := range o.server {
			more = append(more, fn(sc)...)
		}
		more = append(more,
			mcpclient.WithStateChange(func(st mcpclient.State, err error) { t.setState(s, mcptool.State(st), err) }),
			mcpclient.WithToolsChanged(func() { t.changed(s) }))
		s.pub, s.p = providerOf(sc, own, popts, more)
		s.call = s.p.Relay()
		t.servers = append(t.servers, s)
	}

	if err := t.connectAll(ctx); err != nil {
		t.closeProviders()
		return nil, err
	}
	if err := t.buildAll(); err != nil {
		t.closeProviders()
		return nil, err
	}
	t.worker.Add(1)
	go t.work()
	return t, nil
}

// connectAll connects every server at once and returns the error of the
// first required server, in config order, that failed.
func (t *Toolset) connectAll(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(t.servers))
	var wg sync.WaitGroup
	for i, s := range t.servers {
		wg.Go(func() {
			t.setState(s, mcptool.StateConnecting, nil)
			err := s.p.Connect(ctx)
			errs[i] = err
			if err == nil {
				t.setState(s, mcptool.StateReady, nil)
				return
			}
			t.fail(s, err)
			if s.cfg.Required {
				cancel()
			}
		})
	}
	wg.Wait()
	for i, s := range t.servers {
		if errs[i] != nil && s.cfg.Required {
			return &StartError{Server: s.cfg.Name, Err: errs[i]}
		}
	}
	for i, s := range t.servers {
		if errs[i] != nil {
			t.log.Warn("server left out: it did not start", "server", s.cfg.Name, "err", errs[i])
		}
	}
	return nil
}

// fail marks s as left out, failed with err, and closes its provider.
func (t *Toolset) fail(s *server, err error) {
	t.mu.Lock()
	s.out, s.state, s.err = true, mcptool.StateFailed, err
	st := s.status()
	t.mu.Unlock()
	s.p.Close()
	t.notify(st)
}

// isOut reports whether s is left out of the set.
func (t *Toolset) isOut(s *server) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return s.out
}

// setState records a transition of s, from its provider or from Start.
func (t *Toolset) setState(s *server, st mcptool.State, err error) {
	t.mu.Lock()
	if s.out || s.state == st && s.err == err {
		t.mu.Unlock()
		return
	}
	s.state, s.err = st, err
	status := s.status()
	t.mu.Unlock()
	t.notify(status)
}

func (t *Toolset) notify(st ServerStatus) {
	if t.opts.onStatus != nil {
		t.opts.onStatus(st)
	}
}

// Status returns the state of every enabled server, in config order. It may
// be called at any time, from any goroutine.
func (t *Toolset) Status() []ServerStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ServerStatus, len(t.servers))
	for i, s := range t.servers {
		out[i] = s.status()
	}
	return out
}

// Quarantined returns the tools now held out of the catalog, and why,
// server by server in config order, tools in the server's order.
func (t *Toolset) Quarantined() []Quarantine {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Quarantine
	for _, s := range t.servers {
		out = append(out, s.diags...)
	}
	return out
}

// Instructions returns what each running server published on how to use its
// tools, by server name, leaving out servers that published nothing. An
// agent takes them from [Toolset.Offer]'s Set, with the tools.
func (t *Toolset) Instructions() map[string]string {
	out := map[string]string{}
	for _, s := range t.servers {
		if t.isOut(s) {
			continue
		}
		if text := s.p.Instructions(); text != "" {
			out[s.cfg.Name] = text
		}
	}
	return out
}

// Provider returns the running provider of the named server, for what the
// catalog does not carry: reading a resource, the server's info, a raw
// request. It reports false for a server that is not running (disabled, or
// left out at Start).
func (t *Toolset) Provider(name string) (*mcpclient.Provider, bool) {
	if s := t.running(name); s != nil {
		return s.p, true
	}
	return nil, false
}

// Public returns the running provider of the named server as the toolset
// hands it out ([toolset.Toolset.Provider]), and whether it runs.
func (t *Toolset) Public(name string) (*mcptool.Provider, bool) {
	if s := t.running(name); s != nil {
		return s.pub, true
	}
	return nil, false
}

// running is the named server if it runs, else nil.
func (t *Toolset) running(name string) *server {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.servers {
		if s.cfg.Name == name && !s.out {
			return s
		}
	}
	return nil
}

// Close closes every server, all at once, and waits for them and for the
// set's own goroutine (an [OnToolChanged] function it runs included) to
// end. It is idempotent and returns the joined errors of the first call.
func (t *Toolset) Close() error {
	t.closeOnce.Do(func() {
		close(t.done)
		t.worker.Wait()
		t.closeErr = t.closeProviders()
	})
	return t.closeErr
}

func (t *Toolset) closeProviders() error {
	errs := make([]error, len(t.servers))
	var wg sync.WaitGroup
	for i, s := range t.servers {
		wg.Go(func() {
			if err := s.p.Close(); err != nil {
				errs[i] = fmt.Errorf("server %q: close: %w", s.cfg.Name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Accept lets a tool refused by an [OnToolChanged] function back into the
// catalog, pinning the definition its server lists now. It reports whether
// the tool was refused and is still listed.
func (t *Toolset) Accept(server, toolName string) bool {
	for _, s := range t.servers {
		if s.cfg.Name != server {
			continue
		}
		s.syncMu.Lock()
		defer s.syncMu.Unlock()
		t.mu.Lock()
		_, refused := s.refused[toolName]
		delete(s.refused, toolName)
		t.mu.Unlock()
		if !refused {
			return false
		}
		for _, d := range s.p.Tools() {
			if d.Name == toolName {
				t.mu.Lock()
				s.pins[toolName] = pin{hash: pinHash(d), def: d}
				t.mu.Unlock()
				t.apply(s, s.p.Tools())
				return true
			}
		}
		return false
	}
	return false
}
