package mcpclient

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// httpClient returns the client of the provider's HTTP transport for the
// server at endpoint (the legacy SSE transport's if sse is set): a copy of
// the caller's client (or of the default one) whose transport is an
// [exchange], returned too. The caller's client is not modified. Under
// go-sdk's SSE transport the exchange's tap reads the messages along for
// schemas; under ours (streamable HTTP) the connection reads them, and
// the tap only bounds and refuses.
func (p *Provider) httpClient(endpoint *url.URL, schemas *sdkfix.Schemas, sse bool) (*http.Client, *exchange) {
	base := p.cfg.httpClient
	if base == nil {
		base = &http.Client{Transport: p.pool.transport()}
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if b, ok := p.cfg.oauth.(tokenBinder); ok {
		next = b.BindTransport(next)
	}
	var headers http.Header
	if len(p.cfg.headers) > 0 {
		headers = make(http.Header, len(p.cfg.headers))
		for k, v := range p.cfg.headers {
			headers.Set(k, v)
		}
	}
	tap := &sdkfix.HTTPTap{
		Next: next, Limit: p.cfg.maxMessageSize(), Logger: p.cfg.logger, Server: p.name,
		SSE: sse, Authorizes: p.cfg.oauth != nil, Secrets: p.secrets, Conn: !sse,
	}
	if sse {
		tap.Schemas, tap.Unheard = schemas, p.unheard()
	}
	x := &exchange{origin: origin(endpoint), headers: headers, tap: tap}
	c := *base
	c.Transport = x
	return &c, x
}

// tokenBinder is an OAuth handler whose tokens need more on each request
// than the Authorization header go-sdk sets: a handler of package oauth
// with a DPoP key adds a proof to every request (oauth.Transport, which
// this package does not import: it would bring a JOSE library to every
// host).
type tokenBinder interface {
	BindTransport(base http.RoundTripper) http.RoundTripper
}

// maxIdlePerServer is how many idle connections a provider keeps to its
// server: as many as the calls a busy host (a gateway) has in flight.
const maxIdlePerServer = 100

// A pool is the transport of a provider that was given no HTTP client: Go's
// default transport, but for the idle connections it keeps to the server,
// two in Go's, so that under more concurrent calls most would open a
// connection of their own. Close lets them go.
type pool struct {
	once sync.Once
	t    http.RoundTripper
}

func (p *pool) transport() http.RoundTripper {
	p.once.Do(func() {
		p.t = http.DefaultTransport
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			t = t.Clone()
			t.MaxIdleConnsPerHost = maxIdlePerServer
			p.t = t
		}
	})
	return p.t
}

// close closes the idle connections of a transport made.
func (p *pool) close() {
	p.once.Do(func() {}) // none made: none to make after Close
	if t, ok := p.t.(*http.Transport); ok && t != http.DefaultTransport {
		t.CloseIdleConnections()
	}
}

// An exchange is the RoundTripper every HTTP request to a server goes
// through, whoever makes it (go-sdk's transports, an OAuth handler's retry,
// the client following a redirect). It
//
//   - sends requests only to the server's own origin: a redirect to another
//     origin, or a legacy SSE endpoint there, is refused before anything is
//     sent, so that no header, token or request body (a tool's arguments)
//     reaches an origin the host did not configure;
//   - adds the configured headers, on a clone, as a RoundTripper must not
//     modify the request it is given (go-sdk has no header option), and
//     the Mcp-Name of a request about a task, which go-sdk does not set;
//   - then hands the request to the tap ([sdkfix.HTTPTap]), which bounds
//     every message the server sends by the size limit, reads along
//     where go-sdk decodes away what the server wrote, and fails a request
//     answered with no MCP message ([sdkfix.Refusal], an [HTTPError] to
//     the caller).
type exchange struct {
	origin  string
	headers http.Header
	tap     *sdkfix.HTTPTap
	refused atomic.Pointer[originError] // the first request refused
	same    atomic.Pointer[url.URL]     // the URL last found of the origin
}

func (x *exchange) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL != x.same.Load() {
		// A URL once found of the server's origin (the transport sends
		// every request to the one it parsed) is not read again.
		if o := origin(req.URL); o != x.origin {
			if req.Body != nil {
				req.Body.Close()
			}
			err := &originError{own: x.origin, other: o, redirect: req.Response != nil}
			x.refused.CompareAndSwap(nil, err)
			return nil, err
		}
		x.same.Store(req.URL)
	}
	id := route(req.Context())
	if id != "" || len(x.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range x.headers {
			req.Header[k] = v
		}
		if id != "" && req.Header.Get("Mcp-Method") != "" {
			req.Header.Set("Mcp-Name", id) // the task's replica (taskwire.go)
		}
	}
	return x.tap.RoundTrip(req)
}

// blame returns the refusal of a request to another origin, if the
// exchange x (nil for a transport other than HTTP) made one, in place of
// err, a failure to connect that it caused: go-sdk reports either the
// refusal or what it led to (the connection it closed, "client is closing:
// EOF"), depending on which of its goroutines sees the failure first. So
// too for a response the tap refused ([sdkfix.Refusal]), which err may name
// in text alone, or not at all.
func (x *exchange) blame(err error) error {
	if x == nil || err == nil {
		return err
	}
	if r := x.refused.Load(); r != nil {
		return r
	}
	if ref := x.tap.Refused(err); ref != nil {
		return ref
	}
	return err
}

// origin returns the origin of u as a browser compares them: scheme, host
// and port, the default port left out, in lower case.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" || strings.Contains(host, ":") {
		host = net.JoinHostPort(host, port)
		host = strings.TrimSuffix(host, ":") // an IPv6 host without a port
	}
	return scheme + "://" + host
}

// An originError refuses a request to another origin than the server's.
// Neither origin carries a path or query, so neither carries a secret.
type originError struct {
	own, other string
	redirect   bool // the server redirected there; else it named it (an SSE endpoint)
}

func (e *originError) Error() string {
	how := "named " + e.other + " for requests"
	if e.redirect {
		how = "redirected to " + e.other
	}
	return fmt.Sprintf("the server %s, another origin than its own %s: %s", how, e.own, originRefusal)
}

// originRefusal ends the text of an originError, which go-sdk sometimes
// passes on as text alone.
const originRefusal = "refused, as headers, tokens and requests go only to the origin configured"
