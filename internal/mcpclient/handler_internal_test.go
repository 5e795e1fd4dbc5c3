package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Only an error that says the connection, or the exchange of a request on
// it, ended makes a failed call ask whether the session holds; any other
// fails the call at once.
func TestConnectionGone(t *testing.T) {
	for err, want := range map[error]bool{
		fmt.Errorf("calling: %w", mcp.ErrConnectionClosed):                      true,
		fmt.Errorf("calling: %w", mcp.ErrSessionMissing):                        true,
		fmt.Errorf("reading: %w", io.EOF):                                       true,
		fmt.Errorf("reading: %w", io.ErrUnexpectedEOF):                          true,
		fmt.Errorf("posting: %w", syscall.ECONNRESET):                           true,
		errors.New(`calling "tools/call": request terminated without response`): true,
		fmt.Errorf("dialing: %w", syscall.ECONNREFUSED):                         false,
		errors.New("broken response: 500 Internal Server Error"):                false,
		context.DeadlineExceeded:                                                false,
	} {
		if got := connectionGone(err); got != want {
			t.Errorf("connectionGone(%v) = %v, want %v", err, got, want)
		}
	}
}
