package sdkfix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// The HTTP refusals ([Refusal]).
//
// go-sdk reports an HTTP status by its text alone (http.StatusText,
// formatted with %v): the code, the Content-Type, a Retry-After and what
// the body said are lost, and a 2xx body of a Content-Type MCP does not use
// (a web page) or JSON that is no JSON-RPC message ends the connection, so
// that the caller learns only that the client is closing. But it wraps the
// error of an HTTP request that fails with %w (TestGoSDKWrapsRoundTripErrors,
// TestGoSDKKeepsOnlyTheStatusText). So the tap answers such a response with
// a Refusal in place of the response, and go-sdk passes it on whole.

// A Refusal is an HTTP response that carries no MCP message where one was
// due: a status other than success whose body is no JSON-RPC error (a
// proxy's, a load balancer's, a web server's), or a successful one whose
// body MCP does not use. [HTTPTap] returns it as the error of the request.
type Refusal struct {
	// Status is the response's HTTP status code.
	Status int
	// ContentType is the media type of the body, without parameters; ""
	// if none was given.
	ContentType string
	// Want says what MCP answers the request with, for a successful body
	// MCP does not use: "text/event-stream" for the legacy SSE transport's
	// stream, say; "" otherwise.
	Want string
	// NotJSONRPC reports that a successful body of ContentType
	// application/json held no JSON-RPC message.
	NotJSONRPC bool
	// RetryAfter is the wait a Retry-After header asked for, in seconds or
	// until a date; zero if none, or a date past.
	RetryAfter time.Duration
	// Body is the start of a body of text (text/plain or JSON), at most
	// [refusalBodyCap] bytes as the server sent them; nil for any other.
	Body []byte
}

// refusalBodyCap bounds what a Refusal keeps of its body.
const refusalBodyCap = 256

// peekCap bounds what of a refused status's body is read to tell a JSON-RPC
// error, which go-sdk reads and reports, from anything else.
const peekCap = 64 << 10

func (r *Refusal) Error() string {
	status := fmt.Sprintf("HTTP %d %s", r.Status, http.StatusText(r.Status))
	switch {
	case r.NotJSONRPC:
		return status + " with JSON that is no JSON-RPC message"
	case r.Status >= 200 && r.Status < 300:
		ct := r.ContentType
		if ct == "" {
			ct = "none"
		}
		return fmt.Sprintf("%s with Content-Type %s, where MCP answers with %s", status, ct, r.Want)
	}
	return status
}

// Refused returns the Refusal err carries or, failing that, the last one
// x made; nil if x made none. go-sdk passes some on as text alone (the
// legacy SSE transport's POST of initialize), and reports others or what
// they led to (the connection it closed: "client is closing: EOF"),
// depending on which of its goroutines sees the refusal first. A failure
// to connect over a tap that refused an answer has that refusal for cause:
// the provider asks of a connect's failure, over the tap of that connect.
func (x *HTTPTap) Refused(err error) *Refusal {
	var ref *Refusal
	if errors.As(err, &ref) {
		return ref
	}
	return x.last.Load()
}

// refuse returns the Refusal of resp, the answer to req, or nil for a
// response go-sdk is to read. Only what go-sdk would not report in full is
// refused: a redirect goes on (for the client to follow), as does a
// JSON-RPC error (go-sdk reports it), a 401 or 403 when an OAuth handler
// answers them (x.Authorizes), a 404 of a request in a session (go-sdk's
// mcp.ErrSessionMissing, which the provider rebuilds), the answer to a
// notification or a response (which go-sdk does not read), and every GET
// of the streamable transport (its optional stream, whose absence go-sdk
// takes in any form). A body read to tell is put back.
func (x *HTTPTap) refuse(req *http.Request, resp *http.Response) *Refusal {
	ct := mediaType(resp.Header)
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case req.Method == http.MethodGet && !x.SSE,
		req.Method != http.MethodGet && req.Method != http.MethodPost,
		resp.StatusCode >= 300 && resp.StatusCode < 400, // for the client to follow
		!ok && x.Authorizes && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden),
		resp.StatusCode == http.StatusNotFound && req.Header.Get("Mcp-Session-Id") != "":
		return nil
	case !ok:
		if ct == "application/json" && x.jsonRPC(resp, true) {
			return nil
		}
	case req.Method == http.MethodGet: // the legacy SSE transport's stream
		if ct == "text/event-stream" {
			return nil
		}
		ref := x.newRefusal(req, resp, ct)
		ref.Want = "text/event-stream"
		return ref
	case !answered(req):
		// A legacy SSE POST is answered on the stream, and its own body
		// is read by no one: but a web page is no server's (a proxy's
		// login page, say).
		if ct != "text/html" {
			return nil
		}
		ref := x.newRefusal(req, resp, ct)
		ref.Want = "202 Accepted, the answer following on the event stream"
		return ref
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent,
		ct == "text/event-stream" || resp.Body == nil:
		// Accepted (a notification, a response), or a stream.
		return nil
	case ct == "application/json":
		if x.jsonRPC(resp, false) || !isCall(req) {
			return nil
		}
		ref := x.newRefusal(req, resp, ct)
		ref.NotJSONRPC = true
		return ref
	case !isCall(req):
		return nil
	}
	ref := x.newRefusal(req, resp, ct)
	if ok {
		ref.Want = "application/json or text/event-stream"
	}
	return ref
}

// answered reports whether req is one whose response carries its answer:
// a streamable HTTP POST, which accepts both of MCP's answers.
func answered(req *http.Request) bool {
	a := req.Header.Get("Accept")
	return strings.Contains(a, "application/json") && strings.Contains(a, "text/event-stream")
}

// isCall reports whether the POST req carries a JSON-RPC request, which
// is answered with a message, rather than a notification or a response
// (to a request of the server's), which are answered by no body.
func isCall(req *http.Request) bool {
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	var msg struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
	}
	if json.NewDecoder(body).Decode(&msg) != nil || msg.Method == "" {
		return false
	}
	id, err := jsonrpc.MakeID(msg.ID)
	return err == nil && id.IsValid()
}

// newRefusal makes the Refusal of resp, the answer to req, whose body it
// reads (a little, of text) and closes. The body is read past what is kept
// by the room of a secret, so that a secret that begins within what is
// kept is masked whole.
func (x *HTTPTap) newRefusal(req *http.Request, resp *http.Response, ct string) *Refusal {
	ref := &Refusal{Status: resp.StatusCode, ContentType: ct, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	if resp.Body != nil {
		if ct == "text/plain" || ct == "application/json" || ct == "" {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, refusalBodyCap+secretRoom))
			secrets := x.Secrets.WithURL(req.URL.String())
			for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "DPoP", "Mcp-Session-Id"} {
				secrets = secrets.With(req.Header.Values(h)...)
			}
			ref.Body = []byte(secrets.Mask(string(body)))
			ref.Body = ref.Body[:min(len(ref.Body), refusalBodyCap)]
		}
		resp.Body.Close()
	}
	return ref
}

// secretRoom is how far past what it keeps a Refusal reads its body to
// mask a secret that begins within what is kept: the longest masked whole.
const secretRoom = 4 << 10

// jsonRPC reports whether resp's body, which it reads (within the limit,
// and peekCap for a status that failed) and puts back, is a JSON-RPC
// message: for a status that failed, an error response. A successful body
// that opens with its "jsonrpc" member is read no further than that. A body
// over the bound is taken to be one, for go-sdk and the limit to judge.
func (x *HTTPTap) jsonRPC(resp *http.Response, failed bool) bool {
	if resp.Body == nil {
		return false
	}
	bound := int64(x.limit())
	switch {
	case failed && x.limit() >= 0:
		bound = min(bound, peekCap)
	case failed:
		bound = peekCap
	case x.limit() < 0:
		bound = 1<<63 - 1
	}
	if resp.ContentLength > bound {
		return true
	}
	if !failed {
		// SDKs write "jsonrpc" first: its first bytes tell such an answer,
		// which is then not read twice (here, and by the transport).
		p := &peeked{body: resp.Body}
		p.n, _ = io.ReadFull(resp.Body, p.head[:])
		resp.Body = p
		if opensAsJSONRPC(p.head[:p.n]) {
			return true
		}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, bound+1))
	resp.Body = &putBack{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	if err != nil || int64(len(data)) > bound {
		return true
	}
	resp.ContentLength = int64(len(data)) // read whole: known now
	if failed {
		// As go-sdk reads it: a response with an error, or nothing.
		msg, err := jsonrpc.DecodeMessage(data)
		r, isResponse := msg.(*jsonrpc.Response)
		return err == nil && isResponse && r.Error != nil
	}
	var version []byte
	ok := rawjson.Members(data, func(k, v []byte) bool {
		if string(k) == "jsonrpc" {
			version = v
		}
		return true
	})
	return ok && version != nil
}

// peekHead is how much of a successful JSON answer is read to find its
// "jsonrpc" member first.
const peekHead = 64

// opensAsJSONRPC reports whether head, the start of a JSON body, opens an
// object whose first member is "jsonrpc".
func opensAsJSONRPC(head []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{"))
	if !ok {
		return false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(`"jsonrpc"`))
	rest = bytes.TrimLeft(rest, " \t\r\n")
	return ok && len(rest) > 0 && rest[0] == ':'
}

// putBack is a body partly read, with what was read before the rest.
// A peeked body gives back the head read from it, then the rest: the
// head held within, so that a peek costs one allocation.
type peeked struct {
	head   [peekHead]byte
	n, off int
	body   io.ReadCloser
}

func (p *peeked) Read(b []byte) (int, error) {
	if p.off < p.n {
		k := copy(b, p.head[p.off:p.n])
		p.off += k
		return k, nil
	}
	return p.body.Read(b)
}

func (p *peeked) Close() error { return p.body.Close() }

type putBack struct {
	io.Reader
	body io.ReadCloser
}

func (b *putBack) Close() error { return b.body.Close() }

// maxRetryAfter bounds the wait a Retry-After may ask for: a day, past
// which a server's number says nothing a caller could wait on (and would
// overflow a Duration).
const maxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header at now: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return time.Duration(min(max(s, 0), int(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter)
	}
	return 0
}
