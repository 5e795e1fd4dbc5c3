package mcptool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Only an error that says the connection ended makes a failed call wait for
// the session to end; any other fails the call at once.
func TestConnectionGone(t *testing.T) {
	for err, want := range map[error]bool{
		fmt.Errorf("calling: %w", mcp.ErrConnectionClosed):       true,
		fmt.Errorf("calling: %w", mcp.ErrSessionMissing):         true,
		fmt.Errorf("reading: %w", io.EOF):                        true,
		fmt.Errorf("reading: %w", io.ErrUnexpectedEOF):           true,
		errors.New("broken response: 500 Internal Server Error"): false,
		context.DeadlineExceeded:                                 false,
	} {
		if got := connectionGone(err); got != want {
			t.Errorf("connectionGone(%v) = %v, want %v", err, got, want)
		}
	}
}
