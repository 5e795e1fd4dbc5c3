package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// listen listens on the TCP address addr; a failure (an address in use, or
// not an address) is the user's to fix: exit status 2.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return ln, nil
}

// isLoopback reports whether the listen address addr (host:port) binds
// only the loopback interface: a host that is localhost or a loopback IP.
// An empty host (":8080") binds every interface, and is not.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && host != "" && sdkfix.Loopback(host)
}

// serverBounds bound the connections of serveUntilStopped's server
// ([gateway.Limits] Connections and ConnectionIdle): 0 for no bound.
type serverBounds struct {
	conns int
	idle  time.Duration
	tls   *tls.Config // HTTPS, over the connections bounded
}

// newServer is the server of h on ln within b, and the listener to serve:
// a client has 10 s to send a request's headers; b bounds the connections
// (connlimit.go) and how long one stays idle; a request's body is the
// handler's to bound (the gateway's sets a deadline for it).
func newServer(ln net.Listener, h http.Handler, b serverBounds) (*http.Server, net.Listener) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: b.idle}
	if b.conns > 0 {
		limit := newConnLimit(ln, b.conns)
		limit.encrypted = b.tls != nil
		ln, srv.Handler, srv.ConnState, srv.ConnContext = limit, limit.serve(h), limit.state, limit.context
	}
	if b.tls != nil {
		// Over the bound's connections, so that net/http sees each TLS
		// connection itself and offers HTTP/2.
		ln = tls.NewListener(ln, b.tls)
	}
	return srv, ln
}

// serveUntilStopped serves h on ln within b, saying where in the line
// banner makes of its address, until a stop signal ends ctx; then drain, if
// given, runs (its error is the result), and the server closes, and ln
// with it: what is still open a second later (event streams never go idle)
// is cut.
func serveUntilStopped(ctx context.Context, ln net.Listener, h http.Handler, b serverBounds, s *Streams, banner func(net.Addr) string, drain func(context.Context) error) error {
	srv, ln := newServer(ln, h, b)
	fmt.Fprintln(s.Err, banner(ln.Addr()))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	var drained error
	if drain != nil {
		drained = drain(context.WithoutCancel(ctx))
	}
	quick, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if srv.Shutdown(quick) != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return drained
}
