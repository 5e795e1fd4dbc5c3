package gateway

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// implementation is how the gateway introduces itself to clients.
var implementation = mcp.Implementation{Name: "mcpbridge-gateway", Title: "mcpbridge", Version: "0.1.0"}

// A Gateway serves the servers of a [config.Config] as one MCP server. Build
// it with [Start]; serve it over HTTP ([Gateway.Handler]) or stdio
// ([Gateway.Run]), to any number of clients at once; stop it with
// [Gateway.Shutdown] and [Gateway.Close]. A Gateway is safe for concurrent
// use.
type Gateway struct {
	o   options
	log *slog.Logger
	cfg *config.Config
	ts  *catalog.Toolset
	tel *telemetry.Telemetry // nil when nothing records (trace.go)

	full  *mcp.Server // the whole catalog
	small *mcp.Server // find_tools and call_tool (disclosure.go)
	made  atomic.Bool // full and small are made: a server's notices, which come as it starts, may reach them

	mu     sync.Mutex
	served served        // what the servers serve now (catalog.go, features.go)
	subs   subscriptions // the clients' subscriptions to resources (subscriptions.go)

	calls   inFlight           // the clients' requests in flight on each server (inflight.go)
	passing map[string]*passOn // each server's notices to pass on (passon.go)

	drain drain // calls in flight, refused once draining (drain.go)

	lim      Limits            // o.limits resolved (limits.go)
	bytes    *budget           // the bytes of request bodies held (body.go)
	results  *budget           // the bytes of answers not yet taken (results.go)
	slots    slots             // the requests being served (slots.go)
	sessions sessionTable      // the sessions open, and whose each is (sessions.go)
	held     heldCalls         // the calls held for their clients' answers (held.go)
	share    map[string]*slots // each server's requests in flight, shared fairly (passon.go)

	keys   *issuerKeys // the OAuth issuer's keys (jwt.go), nil without Options.OAuth
	limits *limiter    // the clients' rate limits (ratelimit.go)
	tasks  taskIDs     // the ids of the tasks handed to clients (taskid.go)
	store  *store      // the replicas' shared store (store.go), nil without Options.Store
	audit  *auditor    // the audit log (audit.go), nil without Options.Audit

	features chan struct{} // a server's resources or prompts changed
	ctx      context.Context
	cancel   context.CancelFunc
	worker   sync.WaitGroup
	close    sync.Once
	closeErr error
}

// Start starts the servers of cfg as [toolset.Start] does with o.Toolset
// (its error, a required server that did not start say, is returned as it
// is) and serves their tools, resources, resource templates and prompts.
// Options it cannot take are refused first, naming the field; nil o is
// the defaults.
func Start(ctx context.Context, cfg *config.Config, o *Options) (*Gateway, error) {
	opts, err := o.resolve(cfg)
	if err != nil {
		return nil, err
	}
	log := telemetry.Logger(opts.logger)
	g := &Gateway{o: opts, log: log, cfg: cfg, features: make(chan struct{}, 1), limits: newLimiter(opts.rates)}
	g.lim = opts.limits.Resolved()
	if err := g.openStore(); err != nil {
		return nil, err
	}
	g.audit = newAuditor(opts.audit, cfg, opts.tokens, log)
	g.bytes = requestBudget(g.lim)
	g.results = resultBudget(g.lim)
	g.slots = slots{total: g.lim.Calls, perClient: g.lim.CallsPerClient, queue: g.lim.CallQueue, shared: g.store}
	g.sessions = sessionTable{total: g.lim.Sessions, perClient: g.lim.SessionsPerClient, shared: g.store}
	g.limits.shared = g.store
	g.held = heldCalls{total: g.lim.Calls, perClient: g.lim.CallsPerClient, within: g.lim.SessionIdle}
	if g.lim.ServerCalls > 0 {
		g.share = make(map[string]*slots, len(cfg.Servers))
		for _, sc := range cfg.Servers {
			g.share[sc.Name] = &slots{total: g.lim.ServerCalls, fair: true}
		}
	}
	g.ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if opts.oauth != nil {
		g.keys = newIssuerKeys(g.ctx, *opts.oauth)
	}
	g.passing = make(map[string]*passOn, len(cfg.Servers))
	for _, sc := range cfg.Servers {
		g.passing[sc.Name] = newPassOn(sc.Name, g.lim.ServerQueueBytes, log)
	}
	g.tel = telemetry.New(scope, opts.telemetry.Tracer, nil)
	ts, err := catalog.Start(ctx, cfg, g.catalogOptions()...)
	if err != nil {
		g.cancel()
		g.stopPassing()
		if g.store != nil {
			g.store.close()
		}
		return nil, err
	}
	g.ts = ts
	g.full = g.newServer()
	g.full.AddReceivingMiddleware(g.hideDenied)
	g.small = g.newServer()
	g.addDisclosure(g.small)
	g.made.Store(true)
	g.syncTools()
	g.syncFeatures()
	g.worker.Add(1)
	go g.work()
	return g, nil
}

// openStore connects to Options.Store, if given, and takes the task keys:
// Options.TaskKeys, else the replicas' key in the store, else a random one.
func (g *Gateway) openStore() error {
	keys := g.o.taskKeys
	if g.o.store != "" {
		var err error
		g.store, err = openStore(g.o.store, g.lim.StoreTimeout, g.log, newStoreMetrics(g.o.telemetry.Meter))
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			key, err := g.store.taskKey()
			if err != nil {
				g.store.close()
				return fmt.Errorf("gateway: Store %s: reading the replicas' task key: %w (give TaskKeys, --task-key-file, to start without the store)", g.store.addr, err)
			}
			keys = [][]byte{key}
		}
	}
	g.tasks = newTaskIDs(keys...)
	return nil
}

// catalogOptions are Options.Toolset as toolset.Start takes them, with
// the gateway's logger and telemetry where it sets none, and the gateway's
// own options (notices) added to each server's.
func (g *Gateway) catalogOptions() []catalog.Option {
	var o toolset.Options
	if g.o.toolset != nil {
		o = *g.o.toolset
	}
	tracer, meter := o.Telemetry.Tracer, o.Telemetry.Meter
	if tracer == nil {
		tracer = g.o.telemetry.Tracer
	}
	if meter == nil {
		meter = g.o.telemetry.Meter
	}
	opts := []catalog.Option{catalog.WithLogger(cmp.Or(o.Logger, g.log)), catalog.WithTracerProvider(tracer),
		catalog.WithMeterProvider(meter), catalog.WithServer(o.Server), catalog.WithServerOptions(g.notices)}
	if o.Vendor != "" {
		opts = append(opts, catalog.WithVendor(o.Vendor))
	}
	if fn := o.OnStatus; fn != nil {
		opts = append(opts, catalog.OnStatus(func(s catalog.ServerStatus) { fn(toolset.ServerStatus(s)) }))
	}
	if o.OnToolChanged != nil {
		opts = append(opts, catalog.OnToolChanged(o.OnToolChanged))
	}
	if o.Telemetry.Content || g.o.telemetry.Content {
		opts = append(opts, catalog.WithServerOptions(func(config.Server) []mcpclient.Option {
			return []mcpclient.Option{mcpclient.WithCallContent()}
		}))
	}
	return opts
}

// newServer makes one of the gateway's two go-sdk servers.
func (g *Gateway) newServer() *mcp.Server {
	caps := g.capabilities()
	opts := &mcp.ServerOptions{
		Logger:       g.sdkLog(),
		Capabilities: caps,
		Instructions: g.instructions(nil), // each client's own in hideUnreached
	}
	if caps.Completions != nil {
		opts.CompletionHandler = g.complete
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		opts.SubscribeHandler, opts.UnsubscribeHandler = g.subscribe, g.unsubscribe
	}
	s := mcp.NewServer(&implementation, opts)
	g.addTasks(s) // innermost: it reads the caller admit names
	s.AddReceivingMiddleware(g.traced, g.observe, g.setLevel, g.admit)
	s.AddReceivingMiddleware(g.hideUnreached) // reach.go
	s.AddReceivingMiddleware(g.passRaw)       // outermost: every middleware reads the result's head
	return s
}

// Toolset returns the running servers behind the gateway.
func (g *Gateway) Toolset() *toolset.Toolset { return handle.Wrap[toolset.Toolset](g.ts) }

// work takes in the servers' changes until Close: a new tool listing, new
// resources or prompts.
func (g *Gateway) work() {
	defer g.worker.Done()
	for {
		changed := g.ts.Changed()
		select {
		case <-g.ctx.Done():
			return
		case <-changed:
			g.syncTools()
		case <-g.features:
			g.syncFeatures()
		}
	}
}

// notices are the options that carry each server's unasked notices to the
// gateway (a change of its resources or prompts, its log), say what it
// answers as a host (hostio.go), bound its listings (Limits), and for a
// server of Options.Passthrough carry the client's token.
func (g *Gateway) notices(sc config.Server) []mcpclient.Option {
	wake := func() {
		select {
		case g.features <- struct{}{}:
		default:
		}
	}
	listing := mcpclient.WithMaxListing(g.o.limits.ListingItems, g.o.limits.ListingBytes)
	return append(append(g.passthroughOptions(sc), g.hostOptions()...), listing, mcpclient.WithNotices(mcpclient.Notices{
		ResourcesChanged: wake,
		PromptsChanged:   wake,
		ResourceUpdated:  func(ctx context.Context, p *mcp.ResourceUpdatedNotificationParams) { g.resourceUpdated(sc.Name, p) },
		Log:              func(ctx context.Context, p *mcp.LoggingMessageParams) { g.forwardLog(ctx, sc.Name, p) },
		LogLevel:         g.logLevel,
	}))
}

// Close stops serving and closes every server, after the gateway's own
// goroutine has ended, and then every session still open; calls still in
// flight fail. Use [Gateway.Shutdown] first to let them finish. It is
// idempotent and returns the toolset's Close error.
func (g *Gateway) Close() error {
	g.close.Do(func() {
		g.cancel()
		g.subs.close()
		g.held.close()
		g.worker.Wait()
		if g.keys != nil {
			g.keys.close() // jwt.go: the fetch of the issuer's keys
		}
		g.stopPassing()
		g.closeErr = g.ts.Close()
		g.sessions.closeAll()
		if g.store != nil {
			g.store.close() // after the sessions, whose ends give back their leases
		}
	})
	return g.closeErr
}
