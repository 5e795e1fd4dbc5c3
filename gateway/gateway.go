package gateway

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// implementation is how the gateway introduces itself to clients.
var implementation = mcp.Implementation{Name: "mcpbridge-gateway", Title: "mcpbridge", Version: "0.1.0"}

// A Gateway serves the servers of a [toolset.Config] as one MCP server. Build
// it with [Start]; serve it over HTTP ([Gateway.Handler]) or stdio
// ([Gateway.Run]), to any number of clients at once; stop it with
// [Gateway.Shutdown] and [Gateway.Close]. A Gateway is safe for concurrent
// use.
type Gateway struct {
	o   options
	log *slog.Logger
	cfg *catalog.Config
	ts  *catalog.Toolset
	tel *telemetry.Telemetry // nil when nothing records (trace.go)

	full  *mcp.Server // the whole catalog
	small *mcp.Server // find_tools and call_tool (disclosure.go)

	mu     sync.Mutex
	served served        // what the servers serve now (catalog.go, features.go)
	subs   subscriptions // the clients' subscriptions to resources (subscriptions.go)

	calls   inFlight           // the clients' requests in flight on each server (inflight.go)
	passing map[string]*passOn // each server's notices to pass on (passon.go)

	drain drain // calls in flight, refused once draining (drain.go)

	lim      Limits       // o.limits resolved (limits.go)
	bytes    *budget      // the bytes of request bodies held (body.go)
	results  *budget      // the bytes of answers not yet taken (results.go)
	slots    slots        // the requests being served (slots.go)
	sessions sessionTable // the sessions open, and whose each is (sessions.go)

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
func Start(ctx context.Context, cfg *toolset.Config, o *Options) (*Gateway, error) {
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
	g.ctx, g.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if opts.oauth != nil {
		g.keys = newIssuerKeys(g.ctx, *opts.oauth)
	}
	g.passing = make(map[string]*passOn, len(cfg.Servers))
	for _, sc := range cfg.Servers {
		g.passing[sc.Name] = newPassOn(sc.Name, g.lim.ServerQueueBytes, log)
	}
	g.tel = telemetry.New(scope, opts.telemetry.Tracer, nil)
	ts, err := toolset.Start(ctx, cfg, g.toolsetOptions())
	if err != nil {
		g.cancel()
		g.stopPassing()
		if g.store != nil {
			g.store.close()
		}
		return nil, err
	}
	g.ts = (*catalog.Toolset)(ts)
	g.full = g.newServer()
	g.full.AddReceivingMiddleware(g.hideDenied)
	g.small = g.newServer()
	g.addDisclosure(g.small)
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

// toolsetOptions are Options.Toolset with the gateway's logger and
// telemetry where it sets none, and the gateway's own options (notices)
// added to each server's.
func (g *Gateway) toolsetOptions() *toolset.Options {
	var o toolset.Options
	if g.o.toolset != nil {
		o = *g.o.toolset
	}
	o.Logger = cmp.Or(o.Logger, g.log)
	if o.Telemetry.Tracer == nil {
		o.Telemetry.Tracer = g.o.telemetry.Tracer
	}
	if o.Telemetry.Meter == nil {
		o.Telemetry.Meter = g.o.telemetry.Meter
	}
	o.Telemetry.Content = o.Telemetry.Content || g.o.telemetry.Content
	server := o.Server
	o.Server = func(sc toolset.ServerConfig) *mcptool.Options {
		var own *mcptool.Options
		if server != nil {
			own = server(sc)
		}
		return mcpclient.Extend(own, g.notices(sc)...)
	}
	return &o
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
func (g *Gateway) Toolset() *toolset.Toolset { return (*toolset.Toolset)(g.ts) }

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
func (g *Gateway) notices(sc catalog.ServerConfig) []mcpclient.Option {
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
