package sdkfix

import (
	"log/slog"
	"mime"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// An HTTPTap is the [http.RoundTripper] under the HTTP client transports
// (internal/streamable's, go-sdk's legacy SSE one). Under go-sdk's, it does
// for HTTP what [Capture] does for a connection, as go-sdk's HTTP
// connections cannot be wrapped ([HTTPTap.Conn] says which): it shows Schemas the tool
// listings, keeps a call's raw result when its request's context asks
// ([WithCatch]), learns a request's id for a [Sent], and shows Unheard the
// notifications go-sdk drops. It bounds every message the server sends by
// Limit, which go-sdk does not do without ending the connection (see
// limit.go). And it answers a response that carries no MCP message where
// one was due (a status that failed, a web page) with a [Refusal] in its
// place, which go-sdk passes on whole, where it would keep only the
// status's text (see refusal.go).
type HTTPTap struct {
	// Next sends the requests.
	Next http.RoundTripper
	// Schemas, if set, reads the tool listings and the handshake.
	Schemas *Schemas
	// Unheard, if set, is shown the notifications go-sdk drops.
	Unheard Unheard
	// Limit is the largest message, in bytes, the server may send: zero
	// means mcp.DefaultMaxEventSize (16 MiB), a negative Limit none.
	Limit int
	// Logger logs what is refused or dropped for the limit, naming Server.
	Logger *slog.Logger
	Server string
	// SSE reports that the requests are the legacy SSE transport's, whose
	// GET is the connection: a GET that fails is refused ([Refusal]).
	SSE bool
	// Authorizes reports that an OAuth handler answers a 401 or 403, so
	// that those go to the transport, which runs it, rather than being
	// refused.
	Authorizes bool
	// Conn reports that the connection above reads each message itself
	// (internal/streamable's, which a [Capture] wraps): the tap bounds and
	// refuses, and reads nothing along.
	Conn bool
	// Secrets are masked in what a Refusal keeps of its body, with the
	// request's own credentials (its Authorization, a token an OAuth
	// handler put there) and the secret parts of its URL: an error page
	// may echo the request ("Cannot POST /mcp?api_key=...").
	Secrets redact.Secrets

	last atomic.Pointer[Refusal] // the last made, for Refused
}

func (x *HTTPTap) limit() int {
	if x.Limit == 0 {
		return mcp.DefaultMaxEventSize
	}
	return x.Limit
}

// RoundTrip sends req and returns its response, whose body is bounded and
// read along with as it is read.
func (x *HTTPTap) RoundTrip(req *http.Request) (*http.Response, error) {
	listing := false
	if !x.Conn && req.Method == http.MethodPost {
		listing = x.Schemas.request(req)
		if sent := sentOf(req.Context()); sent != nil {
			sent.post(req)
		}
	}
	resp, err := x.Next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	sessionGone(req, resp) // session.go
	if ref := x.refuse(req, resp); ref != nil {
		x.last.Store(ref)
		return nil, ref
	}
	if resp.Body == nil {
		return resp, nil
	}
	r := x.reader(req, listing)
	switch mediaType(resp.Header) {
	case "text/event-stream":
		if x.limit() >= 0 || r.sink != nil {
			resp.Body = &eventStream{body: resp.Body, x: x, r: r}
		}
	case "application/json":
		x.boundJSON(req, resp, r)
	default:
		// An error page, say; go-sdk reads it for a JSON-RPC error at most.
		if x.limit() >= 0 {
			resp.Body = &truncated{resp.Body, int64(x.limit())}
		}
	}
	return resp, nil
}

// A reader is shown the messages of a response as they are read: sink
// is given each whole message while want says so, and may keep it; it
// returns what go-sdk is to read in the message's place, or nil for the
// message itself.
type reader struct {
	sink func([]byte) []byte
	want func() bool
}

// look makes a sink of fn, which only looks.
func look(fn func([]byte)) func([]byte) []byte {
	return func(m []byte) []byte {
		fn(m)
		return nil
	}
}

// reader returns who reads along with the response to req. A POST's
// response answers that POST alone (streamable HTTP), so only a listing's
// is read for the schemas, and a call's kept ([Catch]) only when its
// context asks; a GET stream is read along always, as the legacy SSE
// transport's one stream carries every answer, and it is where a server
// sends the notifications no request asked for (for Unheard).
func (x *HTTPTap) reader(req *http.Request, listing bool) reader {
	if x.Conn {
		return reader{}
	}
	if req.Method == http.MethodPost && !listing {
		if rc := catchOf(req.Context()); rc != nil {
			// A call's stream also carries what its server asks the
			// host: the forms are kept (forms.go).
			return reader{func(m []byte) []byte { x.Schemas.forms(m); return rc.message(m) }, always}
		}
		return reader{}
	}
	switch {
	case x.Unheard != nil:
		return reader{look(x.stream), always}
	case x.Schemas == nil:
		return reader{}
	}
	return reader{look(x.Schemas.message), x.Schemas.waiting}
}

// stream reads a message of a stream for Schemas and Unheard.
func (x *HTTPTap) stream(data []byte) {
	x.Unheard.message(data)
	if x.Schemas != nil && x.Schemas.waiting() {
		x.Schemas.message(data)
	}
}

func always() bool { return true }

// mediaType is the media type of the Content-Type in h, parameters left
// out. The two MCP answers, as servers write them, are read without
// mime.ParseMediaType's allocations.
func mediaType(h http.Header) string {
	v := h.Get("Content-Type")
	switch v {
	case "application/json", "text/event-stream":
		return v
	}
	t, _, _ := mime.ParseMediaType(v)
	return t
}
