package sdkfix

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SSEHandler returns a handler of the legacy HTTP+SSE transport (protocol
// 2024-11-05) for the server getServer returns, as mcp.NewSSEHandler's
// does (a GET opens a session's event stream, whose first event names the
// URL to POST its messages to), except that a request for a method the
// server added with mcp.AddReceivingCustomMethod reaches the server. go-sdk's
// handler checks each POSTed request against the standard methods alone and
// answers any other with 400 Bad Request (TestGoSDKSSERefusesCustomMethods),
// where its streamable HTTP handler asks the server. Here the server's
// session judges every message, as it does over the other transports.
//
// As go-sdk's, it refuses a request that reached a loopback address under
// another host name (DNS rebinding), and a POSTed body over
// mcp.DefaultMaxRequestBodyBytes.
func SSEHandler(getServer func(*http.Request) *mcp.Server) http.Handler {
	return &sseHandler{getServer: getServer, sessions: map[string]*sseSession{}}
}

type sseHandler struct {
	getServer func(*http.Request) *mcp.Server

	mu       sync.Mutex
	sessions map[string]*sseSession
}

func (h *sseHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if Rebound(req) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", req.Host), http.StatusForbidden)
		return
	}
	switch req.Method {
	case http.MethodGet:
		h.open(w, req)
	case http.MethodPost:
		h.post(w, req)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// open serves a new session over the event stream of a GET, until the
// client goes or the server ends the session.
func (h *sseHandler) open(w http.ResponseWriter, req *http.Request) {
	server := h.getServer(req)
	if server == nil {
		http.Error(w, "no server available", http.StatusBadRequest)
		return
	}
	id := rand.Text()
	endpoint, err := req.URL.Parse("?sessionid=" + id)
	if err != nil {
		http.Error(w, "internal error: failed to create endpoint", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	// go-sdk's transport writes the events; its POST side is never used.
	s := &sseSession{
		events:   &mcp.SSEServerTransport{Endpoint: endpoint.RequestURI(), Response: w},
		incoming: make(chan jsonrpc.Message, 100),
		done:     make(chan struct{}),
	}
	h.mu.Lock()
	h.sessions[id] = s
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.sessions, id)
		h.mu.Unlock()
	}()
	ss, err := server.Connect(req.Context(), s, nil)
	if err != nil {
		http.Error(w, "connection failed", http.StatusInternalServerError)
		return
	}
	defer ss.Close()
	select {
	case <-req.Context().Done():
	case <-s.done:
	}
}

// post hands a POSTed message to its session.
func (h *sseHandler) post(w http.ResponseWriter, req *http.Request) {
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	id := req.URL.Query().Get("sessionid")
	if id == "" {
		http.Error(w, "sessionid must be provided", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, req.Body, mcp.DefaultMaxRequestBodyBytes))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		http.Error(w, "failed to parse body", http.StatusBadRequest)
		return
	}
	select {
	case s.incoming <- msg:
		w.WriteHeader(http.StatusAccepted)
	case <-s.done:
		http.Error(w, "session closed", http.StatusBadRequest)
	}
}

// An sseSession is one session's transport and connection: it reads what
// was POSTed and writes through go-sdk's transport, to the event stream.
type sseSession struct {
	events   *mcp.SSEServerTransport
	incoming chan jsonrpc.Message

	conn      mcp.Connection // events' connection, once connected
	done      chan struct{}
	closeOnce sync.Once
}

// Connect writes the endpoint event.
func (s *sseSession) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := s.events.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s.conn = conn
	return s, nil
}

// SupportsProtocolVersion is go-sdk's transport's answer: no version the
// legacy transport cannot serve is offered.
func (s *sseSession) SupportsProtocolVersion(v string) bool {
	return s.events.SupportsProtocolVersion(v)
}

func (s *sseSession) SessionID() string { return "" }

func (s *sseSession) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-s.incoming:
		return msg, nil
	case <-s.done:
		return nil, io.EOF
	}
}

func (s *sseSession) Write(ctx context.Context, msg jsonrpc.Message) error {
	return s.conn.Write(ctx, msg)
}

func (s *sseSession) Close() error {
	s.closeOnce.Do(func() { close(s.done) })
	return s.conn.Close()
}
