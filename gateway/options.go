package gateway

import (
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/policy"
)

// DefaultDrainTimeout bounds [Gateway.Shutdown]'s wait for the calls in
// flight when its context has no earlier deadline.
const DefaultDrainTimeout = 30 * time.Second

// An Option configures [Start].
type Option func(*options)

type options struct {
	logger     *slog.Logger
	toolset    []catalog.Option
	policy     *policy.Policy
	disclosure bool
	tokens     map[string]string // client name → bearer token
	origins    []string
	hosts      []string
	drain      time.Duration

	oauth       *OAuth                    // auth.go
	clients     map[string]*policy.Policy // client name → its own policy (clients.go)
	rates       map[string]rateLimit      // client name → its rate limit (ratelimit.go)
	passthrough []string                  // servers given the client's token (passthrough.go)

	tracerProvider trace.TracerProvider // trace.go
	taskKeys       [][]byte             // taskid.go: the first signs
	limits         Limits               // limits.go
}

// WithLogger sets the logger of the gateway: one record a request it
// serves (method, tool or URI, client, duration, outcome) at info level,
// and what it does with the servers. It is given to the toolset too, unless
// [WithToolsetOptions] says otherwise. Nil, the default, is slog.Default()
// told only warnings and errors (a server left out, a client's stream
// dropped).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithToolsetOptions adds options to the [catalog.Start] the gateway makes:
// the vendor whose naming rules the tools follow, a status callback, the
// providers' options.
func WithToolsetOptions(opts ...catalog.Option) Option {
	return func(o *options) { o.toolset = append(o.toolset, opts...) }
}

// WithPolicy gates the catalog: a tool p denies under any of its names is
// not listed, and a call of it is refused; so is a resource, resource
// template or prompt, judged by the name the gateway serves it under
// ({prefix}_{name}), its own and its alias, which is then served to no
// client. Its approver, if any, is asked
// about each call, with no user to ask on the gateway's side: give one only
// if it answers by itself. Nil, the default, serves every tool.
func WithPolicy(p *policy.Policy) Option { return func(o *options) { o.policy = p } }

// WithDisclosure serves every client the two tools of progressive
// disclosure, find_tools and call_tool, instead of the whole catalog. Without
// it, a client over HTTP still opts in alone by adding ?disclosure=1 to the
// endpoint's URL.
func WithDisclosure() Option { return func(o *options) { o.disclosure = true } }

// WithBearerTokens requires every HTTP request to the MCP endpoint to carry
// Authorization: Bearer with one of the tokens, by client name (the name
// logs carry). A request without one is answered 401. The token is read
// only there: it never goes to a server. Empty, the default, requires
// none, which [Gateway.Handler]'s caller should allow only on loopback.
func WithBearerTokens(byClient map[string]string) Option {
	return func(o *options) { o.tokens = byClient }
}

// WithAllowedOrigins lets browsers on these origins (scheme://host[:port])
// call the endpoint. A request with an Origin header is refused (403) unless
// its origin is one of these, or a loopback origin on a loopback
// connection; a request without one (any client but a browser's) is not
// concerned. None, the default, allows only loopback origins.
func WithAllowedOrigins(origins ...string) Option {
	return func(o *options) { o.origins = append(o.origins, origins...) }
}

// WithAllowedHosts restricts the Host header of requests to these names
// (with or without port), against DNS rebinding on a non-loopback address.
// None, the default, checks only what go-sdk checks: a request that arrived
// on a loopback address must name a loopback host.
func WithAllowedHosts(hosts ...string) Option {
	return func(o *options) { o.hosts = append(o.hosts, hosts...) }
}

// WithDrainTimeout bounds how long [Gateway.Shutdown] waits for the calls in
// flight. Zero means [DefaultDrainTimeout]; a negative duration means no
// bound but Shutdown's context.
func WithDrainTimeout(d time.Duration) Option { return func(o *options) { o.drain = d } }

func (o *options) drainTimeout() time.Duration {
	switch {
	case o.drain == 0:
		return DefaultDrainTimeout
	case o.drain < 0:
		return 0
	}
	return o.drain
}
