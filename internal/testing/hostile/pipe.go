package hostile

import (
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pipe serves s in this process over a pair of pipes and returns the
// client's end as a transport (for mcptool.FromTransport, say). stop closes
// the client's end and returns once Serve has; call it after the client is
// closed.
func (s *Server) Pipe() (t mcp.Transport, stop func()) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(sr, sw)
		sw.Close()
	}()
	return &mcp.IOTransport{Reader: cr, Writer: cw}, func() {
		cw.Close()
		<-done
	}
}

// Piped serves a server in mode in this process for the test t, as [Pipe]
// does, and returns the client's end; the server stops when the test's
// cleanups run. Close the client first: with defer, or with a cleanup
// registered after Piped returns.
func Piped(t testing.TB, mode string) mcp.Transport {
	t.Helper()
	s, err := New(mode)
	if err != nil {
		t.Fatal(err)
	}
	tr, stop := s.Pipe()
	t.Cleanup(stop)
	return tr
}
