package sdkfix

import (
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// go-sdk reports some failures as text alone: it formats their cause with
// %v (the SSE client's writes, a stream that failed), or makes an error of
// an unexported type or of none. These read such errors, so that a caller
// can tell what happened; each text is checked against go-sdk by a test.

// codeRejected is the JSON-RPC code go-sdk's jsonrpc2 gives a request its
// transport refused to send (internal/jsonrpc2/wire.go: ErrRejected), which
// it does not export. (Its codes for a closing connection, -32003 and
// -32004, never reach a caller: a call reports them as
// mcp.ErrConnectionClosed.)
const codeRejected = -32005

// Undelivered reports whether err is go-sdk's saying that its transport
// could not deliver a request (an HTTP request that failed or was refused),
// rather than the server answering with a JSON-RPC error.
func Undelivered(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && wire.Code == codeRejected
}

// streamLost is the text of go-sdk's error for a call whose answer stream
// (streamable HTTP) ended without the answer and cannot be resumed.
const streamLost = "request terminated without response"

// StreamLost reports whether err says that the stream that was to carry a
// call's answer ended without it.
func StreamLost(err error) bool { return strings.Contains(err.Error(), streamLost) }

// malformed are the texts of go-sdk's errors for what a server sent that it
// refuses: a protocol version it does not speak (an unexported type), and a
// message it could not decode or that nests deeper than it takes (over
// HTTP formatted with %v).
var malformed = []string{"unsupported protocol version", "unmarshaling", "exceeded maximum nesting depth"}

// Malformed reports whether err is go-sdk refusing what the server sent.
func Malformed(err error) bool { return says(err, malformed) }

// networkDown are the texts of the network failures go-sdk may pass on as
// text alone.
var networkDown = []string{"connection refused", "connection reset", "broken pipe", "EOF", "i/o timeout", streamLost}

// NetworkDown reports whether err's text says the network failed, also
// where go-sdk kept only the text of the failure.
func NetworkDown(err error) bool { return says(err, networkDown) }

// Says reports whether err's text holds text: for a cause of one's own
// that go-sdk passes on as text alone, so that errors.As no longer finds it.
func Says(err error, text string) bool { return strings.Contains(err.Error(), text) }

func says(err error, texts []string) bool {
	msg := err.Error()
	for _, s := range texts {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
