package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
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

// A failure's message is one string, which has no room for an image: a
// result marked isError gives its images as notes, even one a vision model
// would take.
func TestFailureNotesImages(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "chart:"}, &mcp.ImageContent{MIMEType: "image/png", Data: b.Bytes()}}}
	if got, want := toText(res, ""), `["chart:","[image content (image/png) not shown to the model]"]`; got != want {
		t.Fatalf("got %s; want %s", got, want)
	}
}
