package oauthtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
)

// A Network connects clients to its servers in memory. Its zero value is
// empty and ready; it is safe for concurrent use.
type Network struct {
	mu      sync.Mutex
	servers map[string]http.Handler // by host
}

// Start serves cfg on n at a loopback address of its own, where nothing
// listens: only n's [Network.Client] reaches it.
func (n *Network) Start(cfg Config) *Server {
	s := newServer(cfg)
	n.mu.Lock()
	if n.servers == nil {
		n.servers = map[string]http.Handler{}
	}
	host := fmt.Sprintf("127.0.0.1:%d", len(n.servers)+1)
	n.servers[host] = s.handler()
	n.mu.Unlock()
	s.URL = "http://" + host
	s.init()
	return s
}

// Client returns an HTTP client that reaches n's servers.
func (n *Network) Client() *http.Client { return &http.Client{Transport: n} }

// RoundTrip implements [http.RoundTripper]: the server at r's host serves
// r in the calling goroutine, and its whole answer is the response.
func (n *Network) RoundTrip(r *http.Request) (*http.Response, error) {
	n.mu.Lock()
	h := n.servers[r.URL.Host]
	n.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("oauthtest: no server at %s", r.URL.Host)
	}
	sr := r.Clone(r.Context())
	sr.RequestURI, sr.Host = r.URL.RequestURI(), r.URL.Host
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, sr)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}
