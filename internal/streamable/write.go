package streamable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// errRejected stands for go-sdk's jsonrpc2.ErrRejected, which it does not
// export: a Write whose error wraps an error of its code (go-sdk compares
// JSON-RPC errors by code) fails its request alone; any other error of a
// Write ends the connection's writing.
var errRejected = &jsonrpc.Error{Code: -32005, Message: "rejected by transport"}

// Write sends msg as one POST. A notification or a response is accepted
// (202) and no more; a request's answer, a JSON body or an event stream,
// is read before Write returns, each message of it handed to Read: the
// answer, and what the server sends before it (notifications, its own
// requests). A subscriptions/listen's stream, which lasts, is read apart.
//
// As go-sdk's transport does, a request the server refused for a while
// (500, 502, 503, 504, 429), answered with a JSON-RPC error, or that could
// not be sent fails alone; a session the server forgot (404) ends the
// connection with mcp.ErrSessionMissing, and any other failed status ends
// it too.
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.failedWith(); err != nil {
		return err
	}
	select {
	case <-c.done:
		return fmt.Errorf("%s: %w", summary(msg), errConnClosed)
	default:
	}
	data, err := wire.Encode(msg)
	if err != nil {
		return fmt.Errorf("%s: %v", summary(msg), err)
	}
	req, _ := msg.(*jsonrpc.Request)
	call := req != nil && req.IsCall()
	listen := call && req.Method == "subscriptions/listen"
	if req != nil && req.Method == "notifications/initialized" {
		c.listen(ctx)
	}
	resp, err := c.post(ctx, msg, req, data)
	if err != nil {
		switch {
		case errors.Is(err, errRejected):
		case call && (req.Method == "server/discover" || listen):
			// A server that refuses these with a body of its own (a plain
			// 404, say) refuses the request, not the connection: go-sdk
			// falls back to initialize, or goes on without the stream.
			err = fmt.Errorf("%w: %w", err, errRejected)
		default:
			c.fail(err)
		}
		return err
	}
	if err := c.setSession(resp); err != nil {
		resp.Body.Close()
		c.fail(err)
		return err
	}
	if !call {
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent {
			c.logger.Warn("the MCP server answered a notification or a response with a status other than 202", "status", resp.StatusCode)
		}
		return nil
	}
	switch ct := mediaType(resp.Header.Get("Content-Type")); ct {
	case "application/json":
		c.readJSON(msg, req, resp)
	case "text/event-stream":
		if listen {
			// It lasts as long as the session listens: read apart, until
			// go-sdk cancels it or Close.
			c.streams.Add(1)
			go func() {
				defer c.streams.Done()
				c.stream(ctx, msg, req, resp, false)
			}()
			return nil
		}
		c.stream(ctx, msg, req, resp, true)
	default:
		resp.Body.Close()
		return fmt.Errorf("%s: unsupported content type %q", summary(msg), ct)
	}
	return nil
}

// summary names a message in an error, as go-sdk does.
func summary(msg jsonrpc.Message) string {
	if req, ok := msg.(*jsonrpc.Request); ok {
		return fmt.Sprintf("sending %q", req.Method)
	}
	return "sending jsonrpc response"
}

// mediaType is the media type of a Content-Type v, parameters left out:
// the two MCP answers, as servers write them, without
// mime.ParseMediaType's allocations.
func mediaType(v string) string {
	switch v {
	case "application/json", "text/event-stream":
		return v
	}
	t, _, err := mime.ParseMediaType(v)
	if err != nil {
		return ""
	}
	return t
}

// post sends data, the message msg (req if it is a request), and returns
// the server's answer, checked: run again once after an OAuth handler
// authorized a refused one.
func (c *Conn) post(ctx context.Context, msg jsonrpc.Message, req *jsonrpc.Request, data []byte) (*http.Response, error) {
	send := func() (*http.Request, *http.Response, error) {
		var version string
		if req != nil {
			version = metaVersion(req.Params)
		}
		hreq, err := c.request(ctx, http.MethodPost, data, version)
		if err == nil && req != nil {
			if v := hreq.Header[versionHeader]; len(v) == 1 && v[0] >= standardVersion {
				setStandard(hreq.Header, req, c.t.InputSchema)
			}
		}
		if err != nil {
			// Nothing was sent.
			return nil, nil, fmt.Errorf("%s: %w: %w", summary(msg), errRejected, err)
		}
		hreq.Header["Content-Type"] = jsonType
		hreq.Header["Accept"] = acceptBoth
		resp, err := c.t.Client.Do(hreq)
		if err != nil {
			// It did not reach the server, or was refused on the way.
			return nil, nil, fmt.Errorf("%s: %w: %w", summary(msg), errRejected, err)
		}
		return hreq, resp, nil
	}
	hreq, resp, err := send()
	if err != nil {
		return nil, err
	}
	if (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && c.t.OAuth != nil {
		if err := c.t.OAuth.Authorize(ctx, hreq, resp); err != nil {
			// A caller who gave up must not be asked to authorize again
			// (the cancellation go-sdk then sends, say).
			if ctxErr := ctx.Err(); errors.Is(ctxErr, context.Canceled) || errors.Is(ctxErr, context.DeadlineExceeded) {
				c.fail(fmt.Errorf("%s: authorization cancelled: %w", summary(msg), err))
			}
			return nil, fmt.Errorf("%s: %w: %w", summary(msg), errRejected, err)
		}
		if _, resp, err = send(); err != nil {
			return nil, err
		}
	}
	if err := c.check(msg, resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// The values of the headers every POST carries.
var (
	jsonType   = []string{"application/json"}
	acceptBoth = []string{"application/json, text/event-stream"}
	acceptSSE  = []string{"text/event-stream"}
)

// request makes a request of the session to the endpoint: the OAuth
// handler's token, the protocol version (version, which a request of
// 2026-07-28 names in its _meta, else the session's), the session.
func (c *Conn) request(ctx context.Context, method string, data []byte, version string) (*http.Request, error) {
	var body io.Reader
	if data != nil {
		// A reader net/http knows to be in memory: it writes the headers
		// with the body then, in one write, where it would send them
		// ahead of another reader's body. NewRequest sets the length and
		// GetBody, for a message sent again if the connection it went
		// out on was found closed.
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "", body)
	if err != nil {
		return nil, err
	}
	req.URL = c.url // req.Host left empty: URL's, with no copy of URL for it
	if c.t.OAuth != nil {
		if err := c.authorize(ctx, req); err != nil {
			return nil, err
		}
	}
	session, known := c.headers()
	switch {
	case version == "" || len(known) == 1 && known[0] == version:
		if known != nil {
			req.Header[versionHeader] = known
		}
	default:
		req.Header[versionHeader] = []string{version}
	}
	if session != nil {
		req.Header[sessionHeader] = session
	}
	return req, nil
}

// authorize puts the OAuth handler's token on req. A token source that
// holds no valid grant (its refresh token expired, say) adds none: the
// server's 401 then runs the handler's flow.
func (c *Conn) authorize(ctx context.Context, req *http.Request) error {
	ts, err := c.t.OAuth.TokenSource(c.life)
	if err != nil || ts == nil {
		return err
	}
	token, err := ts.Token()
	var retrieve *oauth2.RetrieveError
	switch {
	case errors.As(err, &retrieve) && retrieve.ErrorCode == "invalid_grant":
		return nil
	case err != nil:
		return err
	case token != nil:
		req.Header.Set("Authorization", "Bearer "+token.AccessToken)
	}
	return nil
}

// check turns a failed status into the error go-sdk's transport gives it.
func (c *Conn) check(msg jsonrpc.Message, resp *http.Response) error {
	code := resp.StatusCode
	switch code {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		// For a while: the connection holds.
		return fmt.Errorf("%w: %s: %v", errRejected, about(msg), http.StatusText(code))
	}
	if code >= 200 && code < 300 {
		return nil
	}
	body, _ := io.ReadAll(resp.Body)
	if m, err := wire.Decode(body); err == nil {
		if r, ok := m.(*jsonrpc.Response); ok && r.Error != nil {
			return fmt.Errorf("%s: %w: %w: %v", about(msg), r.Error, errRejected, http.StatusText(code))
		}
	}
	if session := c.SessionID(); code == http.StatusNotFound && session != "" {
		return fmt.Errorf("%s: failed to connect (session ID: %v): %w", about(msg), session, mcp.ErrSessionMissing)
	}
	return fmt.Errorf("%s: %v", about(msg), http.StatusText(code))
}

// readJSON reads the answer to req, a JSON body, and hands it to Read.
func (c *Conn) readJSON(msg jsonrpc.Message, req *jsonrpc.Request, resp *http.Response) {
	defer c.untrack(c.track(resp.Body))
	defer resp.Body.Close()
	data, err := readAll(resp)
	if err != nil {
		c.fail(fmt.Errorf("%s: failed to read body: %v", summary(msg), err))
		return
	}
	m, err := wire.Decode(data)
	if err != nil {
		c.fail(fmt.Errorf("%s: failed to decode response: %v", summary(msg), err))
		return
	}
	c.learn(req, m)
	c.deliver(m)
}

// readAll reads a body whole, into one allocation of its size: read
// directly when its length is known, else gathered in a buffer kept for
// the next.
func readAll(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n < 1<<30 {
		data := make([]byte, n)
		_, err := io.ReadFull(resp.Body, data)
		return data, err
	}
	b := bodies.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= 1<<20 { // one huge body should not pin its memory
			b.Reset()
			bodies.Put(b)
		}
	}()
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	return bytes.Clone(b.Bytes()), nil
}

var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// learn learns from the answer m to req what the session's requests say
// later: the protocol version the server chose (initialize), or the one a
// discovery asked for that the server supports (2026-07-28).
func (c *Conn) learn(req *jsonrpc.Request, m jsonrpc.Message) {
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil || r.ID != req.ID {
		return
	}
	switch req.Method {
	case "initialize":
		c.setVersion(stringMember(r.Result, "protocolVersion"))
	case "server/discover":
		// go-sdk takes the version it asked for if the server supports
		// it, and else asks again for one both do.
		asked := metaVersion(req.Params)
		if rawjson.Elements(member(r.Result, "supportedVersions"), func(v []byte) bool {
			s, _ := rawjson.String(v)
			return s != asked
		}) {
			return // not among them
		}
		c.setVersion(asked)
	}
}
