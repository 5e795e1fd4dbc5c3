package gateway

import (
	"bytes"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// DefaultDrainTimeout bounds [Gateway.Shutdown]'s wait for the calls in
// flight when its context has no earlier deadline.
const DefaultDrainTimeout = 30 * time.Second

// Options configure [Start]; nil or the zero value serves every tool to
// any client, with no token asked and the default [Limits]. What the
// servers are is the config given to Start.
type Options struct {
	// Toolset is how the servers run: the vendor their tools are named
	// for, a status callback, each server's provider options. Its Logger
	// and Telemetry, where unset, are the gateway's.
	Toolset *toolset.Options
	// Logger gets one record a request served (method, tool or URI,
	// client, duration, outcome) at info level, and what the gateway does
	// with the servers. Nil is slog.Default() told only warnings and
	// errors.
	Logger *slog.Logger
	// Telemetry is where the gateway's spans go: each request a client
	// sends is a server span in the trace its params._meta carries, with
	// the servers' calls nested in it. Nil providers are OpenTelemetry's
	// global ones.
	Telemetry mcptool.Telemetry

	// Policy gates the catalog for every client: a tool, resource,
	// template or prompt it denies under any of its names (as the gateway
	// serves it, {prefix}_{name}, or its alias) is served to no client.
	// Its approver, if any, is asked about each call with no user to ask:
	// give one only if it answers by itself.
	Policy *policy.Policy
	// Clients are the clients the gateway tells apart, by name: the
	// config file's "clients", with their bearer tokens. An entry holds
	// for the requests of its Token, or for the JWT access tokens (OAuth)
	// of the app of its name (client_id claim, else azp, else sub): each
	// user of that app ([OAuth] UserClaim) is a client of its own, with
	// the entry's policy and a rate limit of the entry's figures.
	Clients map[string]Client
	// RateLimit bounds each client without one of its own, and the
	// requests without a token, which share one bucket. Nil: no limit.
	RateLimit *RateLimit
	// OAuth makes the HTTP endpoint an OAuth 2.1 resource server; with
	// tokens in Clients too, a request may carry either.
	OAuth *OAuth
	// Passthrough names the servers sent the token a client gave the
	// gateway, in their Authorization header, on the requests made for
	// that client. The MCP authorization spec forbids it as a default:
	// name a server only when it trusts the same issuer and expects the
	// user's own token. Start refuses a server not in the config, not
	// reached over HTTP, or with credentials of its own.
	Passthrough []string

	// AllowedOrigins lets browsers on these origins (scheme://host[:port])
	// call the endpoint: a request with another Origin is refused (403)
	// unless it is a loopback origin on a loopback connection.
	AllowedOrigins []string
	// AllowedHosts restricts the Host header of requests to these names
	// (with or without port), against DNS rebinding on an address that is
	// not loopback. None checks only that a request that arrived on a
	// loopback address names a loopback host.
	AllowedHosts []string
	// Disclosure serves every client find_tools and call_tool in place of
	// the catalog; without it, a client over HTTP asks alone, adding
	// ?disclosure=1 to the endpoint's URL.
	Disclosure bool
	// Limits bound what the gateway holds for its clients; a zero field
	// is its default.
	Limits Limits
	// DrainTimeout bounds how long [Gateway.Shutdown] waits for the calls
	// in flight: zero is [DefaultDrainTimeout], a negative one no bound but
	// Shutdown's context.
	DrainTimeout time.Duration
	// TaskKeys bind the id of each task the gateway hands a client to the
	// server, the client and the server's id, so that only that client,
	// at a replica holding the key, reaches it. The first key signs new
	// ids and every one verifies them: replicas share the keys, and rotate
	// them by adding the new one second, then moving it first, then
	// dropping the old one. Each is [TaskKeySize] bytes or more. None: a
	// random key, whose ids do not survive a restart; with a Store, the
	// key the replicas share there.
	TaskKeys [][]byte

	// Store is the URL of the replicas' shared store: Redis 7 or Valkey,
	// redis://[user:password@]host:port[/db], rediss://... (TLS) or
	// unix:///path. With it, each client's rate limit, SessionsPerClient
	// and CallsPerClient hold across every replica that names the same
	// store, each count atomic in the store, and without TaskKeys the
	// replicas share a task key kept there (protect the store as the key
	// file: a password, a network only the replicas reach). Each operation
	// is bounded by Limits.StoreTimeout; while the store does not answer,
	// each replica holds its share of those limits (the figure divided by
	// the replicas it last saw), logged, in /readyz and in the metrics.
	// Empty: one process, every limit its own. [Start] needs the store to
	// answer only to read the task key.
	Store string
	// Audit, if not nil, writes a record of every request a client sends
	// and of every one refused: who, which server and tool, outcome,
	// duration, bytes, request id ([Audit]).
	Audit *Audit
}

// A Client is what one client is granted, as an entry of the config
// file's "clients" object ({"allow", "deny", "rateLimit"}), and its
// bearer token.
type Client struct {
	// Token, when set, names the client: an HTTP request with it in
	// Authorization: Bearer is the client's, and once any client has a
	// token, a request without a known one is refused (401) unless OAuth
	// takes it. It goes no further than the check, and is never in the
	// config file (mcpbridge serve reads it from --token-file).
	Token string `json:"-"`
	// Allow and Deny are the client's own tool patterns (as
	// [policy.Config]'s), on top of the gateway's Policy: what they do not
	// allow is neither listed to the client nor run, read, got, completed
	// or subscribed to for it, and a server it is allowed nothing of is
	// invisible to it. Neither: what every client is served.
	Allow []string `json:"allow"`
	// Deny are the client's own patterns of what it may not reach, on top
	// of the gateway's Policy; a deny wins over an allow.
	Deny []string `json:"deny"`
	// RateLimit is the client's own; nil is the gateway's RateLimit.
	RateLimit *RateLimit `json:"rateLimit"`
}

// A RateLimit is Rate requests a second, in bursts of up to Burst: a
// token bucket per client, refilled continuously. A request over it is
// refused with [CodeRateLimited], saying when to retry; every request
// counts but notifications and what a client says to connect (initialize,
// server/discover, subscriptions/listen). Zero Rate is the default (a
// client's: the gateway's RateLimit; the gateway's: none), a negative one
// no limit. Zero Burst is the rate rounded up, at least 1.
type RateLimit struct {
	// Rate is requests a second, the bucket's refill.
	Rate float64 `json:"rate"`
	// Burst is how many requests may come at once, the bucket's size.
	Burst int `json:"burst"`
}

// options are [Options] as the gateway applies them, checked.
type options struct {
	toolset    *toolset.Options
	logger     *slog.Logger
	telemetry  mcptool.Telemetry
	policy     *policy.Policy
	disclosure bool
	tokens     map[string]string // client name → bearer token
	origins    []string
	hosts      []string
	drain      time.Duration

	oauth       *OAuth                    // auth.go
	clients     map[string]*policy.Policy // client name → its own policy (clients.go)
	rates       map[string]rateLimit      // client name → its rate limit, "" the default (ratelimit.go)
	passthrough []string                  // servers given the client's token (passthrough.go)

	taskKeys [][]byte // taskid.go: the first signs
	limits   Limits   // limits.go
	store    string   // store.go
	audit    *Audit   // audit.go
}

// resolve checks o against cfg and returns it as the gateway applies it,
// or an error naming the field.
func (o *Options) resolve(cfg *config.Config) (options, error) {
	if o == nil {
		o = &Options{}
	}
	r := options{
		toolset:     o.Toolset,
		logger:      o.Logger,
		telemetry:   o.Telemetry,
		policy:      o.Policy,
		disclosure:  o.Disclosure,
		origins:     slices.Clone(o.AllowedOrigins),
		hosts:       slices.Clone(o.AllowedHosts),
		drain:       o.DrainTimeout,
		passthrough: slices.Clone(o.Passthrough),
		limits:      o.Limits,
		store:       o.Store,
		audit:       o.Audit,
	}
	for _, k := range o.TaskKeys {
		r.taskKeys = append(r.taskKeys, bytes.Clone(k))
	}
	if o.OAuth != nil {
		oa := *o.OAuth
		r.oauth = &oa
	}
	if err := r.rate("RateLimit", "", o.RateLimit); err != nil {
		return r, err
	}
	if err := r.addClients(o.Clients); err != nil {
		return r, err
	}
	if r.oauth != nil {
		if err := r.oauth.check(); err != nil {
			return r, err
		}
	}
	if err := r.checkTaskKeys(); err != nil {
		return r, err
	}
	if err := r.limits.check(); err != nil {
		return r, err
	}
	return r, r.checkPassthrough(cfg)
}

// addClients takes in each client's token, policy and rate limit.
func (r *options) addClients(clients map[string]Client) error {
	names := slices.Sorted(maps.Keys(clients)) // the same error each time
	byToken := map[string]string{}
	for _, name := range names {
		c := clients[name]
		field := fmt.Sprintf("Clients[%q]", name)
		if name == "" {
			return fmt.Errorf("gateway: %s: a client needs a name (the requests without a token have the gateway's Policy and RateLimit)", field)
		}
		if c.Token != "" {
			if other, ok := byToken[c.Token]; ok {
				return fmt.Errorf("gateway: %s: the token of Clients[%q] too: a token names one client", field, other)
			}
			byToken[c.Token] = name
			if r.tokens == nil {
				r.tokens = map[string]string{}
			}
			r.tokens[name] = c.Token
		}
		if len(c.Allow)+len(c.Deny) > 0 {
			p, err := policy.New(policy.Config{Allow: c.Allow, Deny: c.Deny})
			if err != nil {
				return fmt.Errorf("gateway: %s: %w", field, err)
			}
			if r.clients == nil {
				r.clients = map[string]*policy.Policy{}
			}
			r.clients[name] = p
		}
		if err := r.rate(field+".RateLimit", name, c.RateLimit); err != nil {
			return err
		}
	}
	return nil
}

// rate takes in the rate limit of client ("" the default), field naming
// it in an error.
func (r *options) rate(field, client string, l *RateLimit) error {
	if l == nil {
		return nil
	}
	if l.Burst < 0 {
		return fmt.Errorf("gateway: %s: burst %d: want 0 (the default) or more", field, l.Burst)
	}
	if r.rates == nil {
		r.rates = map[string]rateLimit{}
	}
	r.rates[client] = rateLimit{l.Rate, l.Burst}
	return nil
}

func (o *options) drainTimeout() time.Duration {
	switch {
	case o.drain == 0:
		return DefaultDrainTimeout
	case o.drain < 0:
		return 0
	}
	return o.drain
}
