package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
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

// serveUntilStopped serves h on ln, saying where in the line banner makes
// of its address, until a stop signal ends ctx; then drain, if given, runs
// (its error is the result), and the server closes, and ln with it: what
// is still open a second later (event streams never go idle) is cut.
func serveUntilStopped(ctx context.Context, ln net.Listener, h http.Handler, s *Streams, banner func(net.Addr) string, drain func(context.Context) error) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
