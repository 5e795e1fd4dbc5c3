package mcptool

import (
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// httpClient returns the client of the provider's HTTP transports for the
// server at endpoint: a copy of the caller's client (or of the default one)
// whose transport is an [exchange]. The caller's client is not modified.
func (p *Provider) httpClient(endpoint *url.URL, keeper *schemaKeeper) *http.Client {
	base := p.cfg.httpClient
	if base == nil {
		base = http.DefaultClient
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	var headers http.Header
	if len(p.cfg.headers) > 0 {
		headers = make(http.Header, len(p.cfg.headers))
		for k, v := range p.cfg.headers {
			headers.Set(k, v)
		}
	}
	c := *base
	c.Transport = &exchange{
		server: p.name, origin: origin(endpoint), headers: headers,
		limit: p.cfg.maxMessageSize, keeper: keeper, logger: p.cfg.logger, next: next,
	}
	return &c
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
//     modify the request it is given;
//   - bounds every message the server sends by the size limit (see
//     limit.go), shows the keeper the tool listings, and keeps a call's
//     raw result when its context asks ([rawCatch]).
type exchange struct {
	server  string
	origin  string
	headers http.Header
	limit   int // bytes; < 0 means none
	keeper  *schemaKeeper
	logger  *slog.Logger
	next    http.RoundTripper
}

func (x *exchange) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := origin(req.URL); o != x.origin {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &originError{own: x.origin, other: o, redirect: req.Response != nil}
	}
	if len(x.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range x.headers {
			req.Header[k] = v
		}
	}
	listing := req.Method == http.MethodPost && x.keeper.request(req)
	resp, err := x.next.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	r := x.reader(req, listing)
	switch ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct {
	case "text/event-stream":
		if x.limit >= 0 || r.sink != nil {
			resp.Body = &eventStream{body: resp.Body, x: x, r: r}
		}
	case "application/json":
		x.boundJSON(req, resp, r)
	default:
		// An error page, say; go-sdk reads it for a JSON-RPC error at most.
		if x.limit >= 0 {
			resp.Body = &truncated{resp.Body, int64(x.limit)}
		}
	}
	return resp, nil
}

// A reader is shown the messages of a response as they are read: sink
// is given each whole message while want says so, and may keep it.
type reader struct {
	sink func([]byte)
	want func() bool
}

// reader returns who reads along with the response to req. A POST's
// response answers that POST alone (streamable HTTP), so only a listing's
// is read for the keeper, and a call's kept ([rawCatch]) only when its
// context asks; a GET stream is read along always, as the legacy SSE
// transport's one stream carries every answer.
func (x *exchange) reader(req *http.Request, listing bool) reader {
	if req.Method == http.MethodPost && !listing {
		if rc := catchOf(req.Context()); rc != nil {
			return reader{rc.keepMessage, always}
		}
		return reader{}
	}
	if x.keeper == nil {
		return reader{}
	}
	return reader{x.keeper.message, x.keeper.waiting}
}

func always() bool { return true }

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
