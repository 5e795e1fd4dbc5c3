package cli

import (
	"net"
	"net/http"
	"time"

	"github.com/mcpbridge/mcpbridge/gateway"
)

// listenStatus listens on serve's --status-http address, which must be
// loopback: its /readyz names every server and its state, and answers
// without a token.
func listenStatus(addr string) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil || !isLoopback(addr) {
		return nil, Usagef("--status-http %s: want a loopback host:port, such as 127.0.0.1:9090: the servers' states are the operator's, and it takes no token", addr)
	}
	return listen(addr)
}

// serveStatus serves g's status endpoints on ln until stop, which closes
// ln and waits for the server to end.
func serveStatus(g *gateway.Gateway, ln net.Listener) (stop func()) {
	srv := &http.Server{Handler: g.StatusHandler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln) // ends with stop, or with the listener: the endpoint serves on
	}()
	return func() {
		srv.Close()
		<-done
	}
}
