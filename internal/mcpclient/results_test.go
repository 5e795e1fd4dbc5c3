package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/tool"
)

// overEach runs test against a hostile server in mode reached over stdio,
// in process over pipes, and over streamable HTTP: a result reaches go-sdk
// through a different path on each.
func overEach(t *testing.T, mode string, test func(t *testing.T, p *mcpclient.Provider)) {
	// Long enough never to pass in a test that works: an answer that
	// arrived must fail or succeed at once, never wait out the timeout.
	long := mcpclient.WithCallTimeout(time.Minute)
	t.Run("stdio", func(t *testing.T) {
		p := raw(t, mode, long)
		connect(t, p)
		test(t, p)
	})
	t.Run("pipe", func(t *testing.T) {
		p, _, err := pipeProvider(t, mode, long)
		if err != nil {
			t.Fatal(err)
		}
		test(t, p)
	})
	t.Run("http", func(t *testing.T) {
		s, err := hostile.New(mode)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		p := connectURL(t, srv.URL, mcpclient.WithName("http"), long)
		test(t, p)
	})
}

const imageNote = "[image content (image/png) not shown to the model]"

// Proves that one content part whose base64 is corrupt costs that part
// only: the handler, CallTool and CallToolResult keep the rest, the bad part
// becoming a one-line note.
func TestCorruptPartKeepsTheRest(t *testing.T) {
	overEach(t, "corrupt-image", func(t *testing.T, p *mcpclient.Provider) {
		ctx := context.Background()
		res, err := p.Handler().Call(ctx, "echo", nil)
		if err != nil {
			t.Fatalf("handler: %v", err)
		}
		want := `["kept","` + imageNote + `"]`
		if got := texts(res); got != want {
			t.Errorf("handler = %s, want %s", got, want)
		}
		text, err := callText(ctx, p, "echo", nil)
		if err != nil || text != want {
			t.Errorf("CallTool = %s, %v; want %s", text, err, want)
		}
		full, err := p.CallToolResult(ctx, "echo", nil)
		if err != nil {
			t.Fatalf("CallToolResult: %v", err)
		}
		if len(full.Content) != 2 || mcpclient.ToReply(&mcp.CallToolResult{Content: full.Content[1:]}).Text() != imageNote {
			t.Errorf("CallToolResult content = %s", mustJSON(t, full.Content))
		}
	})
}

// Proves that over a transport mcptool cannot read along (one of the
// caller's), where go-sdk's decoding is final, a result it cannot decode is
// a ProtocolError: the server answered, wrongly.
func TestUndecodableResultOverAnOpaqueTransport(t *testing.T) {
	s, err := hostile.New("corrupt-image")
	if err != nil {
		t.Fatal(err)
	}
	tr, stop := s.Pipe()
	defer stop()
	p := mcpclient.FromTransport("opaque", opaque{tr})
	defer p.Close()
	connect(t, p)
	_, err = p.Handler().Call(context.Background(), "echo", nil)
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "base64") {
		t.Fatalf("err = %T %v, want a ProtocolError", err, err)
	}
}

// Proves that a resource whose blob cannot be decoded is a ProtocolError
// naming server and method: the server answered, wrongly. (The read is
// not salvaged as a call is: a read is of one resource, as a rule.)
func TestReadCorruptBlob(t *testing.T) {
	p := raw(t, "corrupt-blob")
	connect(t, p)
	_, err := p.ReadResource(context.Background(), "file:///a.txt")
	var pe *mcpclient.ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `server "raw": resources/read "file:///a.txt"`) {
		t.Fatalf("err = %T %v, want a ProtocolError", err, err)
	}
}

// opaque hides its connection's type from mcptool.
type opaque struct{ mcp.Transport }

func (o opaque) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := o.Transport.Connect(ctx)
	return struct{ mcp.Connection }{c}, err
}

// Proves that parts the protocol does not allow (no type, an unknown type,
// a text that is a number, null, a string, corrupt audio, blob and image)
// each become a one-line note, in place, and the good parts around them are
// kept.
func TestBadPartsBecomeNotes(t *testing.T) {
	overEach(t, "bad-parts", func(t *testing.T, p *mcpclient.Provider) {
		text, err := callText(context.Background(), p, "echo", nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("CallTool = %s: %v", text, err)
		}
		want := []string{
			"first",
			"[unknown content (unknown type) not shown to the model]",
			"[unknown content (video/mp4) not shown to the model]",
			"[text content (unknown type) not shown to the model]",
			"[unknown content (unknown type) not shown to the model]",
			"[unknown content (unknown type) not shown to the model]",
			"[audio content (audio/wav) not shown to the model]",
			"[resource content (application/octet-stream) not shown to the model]",
			"[image content (unknown type) not shown to the model]", // its MIME type would break the line
			"last",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("CallTool =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// Proves that a result the protocol does not allow as a whole (null, no
// content, content that is not an array, isError that is not a boolean) is
// a ProtocolError naming server and tool.
func TestResultsNotAllowed(t *testing.T) {
	for mode, want := range map[string]string{
		"null-result":     "the result is null",
		"empty-result":    "the result has no content",
		"content-string":  "content",
		"is-error-string": "isError",
	} {
		t.Run(mode, func(t *testing.T) {
			overEach(t, mode, func(t *testing.T, p *mcpclient.Provider) {
				_, err := p.Handler().Call(context.Background(), "echo", nil)
				var pe *mcpclient.ProtocolError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %T %v, want a ProtocolError", err, err)
				}
				for _, s := range []string{`server "` + p.Name() + `"`, `tools/call "echo"`, want} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("err = %v, want it to say %q", err, s)
					}
				}
				if _, err := p.CallToolResult(context.Background(), "echo", nil); !errors.As(err, &pe) {
					t.Errorf("CallToolResult: err = %v, want a ProtocolError", err)
				}
			})
		})
	}
}

// Proves that an answer nested deeper than any decoder here takes fails
// its call as soon as it arrives, with a ProtocolError, rather than at the
// call timeout. Over stdio the connection goes on; go-sdk's own
// connections (pipe, HTTP) end on a message they cannot decode.
func TestDeepResultFailsAtOnce(t *testing.T) {
	overEach(t, "deep-result", func(t *testing.T, p *mcpclient.Provider) {
		calls := 1
		if p.Name() == "raw" {
			calls = 2
		}
		for range calls {
			_, err := p.Handler().Call(context.Background(), "echo", nil)
			var pe *mcpclient.ProtocolError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "depth") || !strings.Contains(err.Error(), `tools/call "echo"`) {
				t.Fatalf("err = %T %v, want a ProtocolError about the depth", err, err)
			}
		}
	})
}

// Proves the results the protocol allows, or that are harmless, are taken:
// structured content that is not an object (SEP-2106 allows any JSON
// value), and text that is not UTF-8 (each bad byte becomes U+FFFD).
func TestResultsTolerated(t *testing.T) {
	overEach(t, "structured-string", func(t *testing.T, p *mcpclient.Provider) {
		res, err := p.Handler().Call(context.Background(), "echo", nil)
		if err != nil || texts(res) != "t" || string(res.Structured) != `"s"` {
			t.Errorf("handler = %s, %s, %v", texts(res), res.Structured, err)
		}
	})
	overEach(t, "bad-utf8", func(t *testing.T, p *mcpclient.Provider) {
		res, err := p.Handler().Call(context.Background(), "echo", nil)
		if err != nil || texts(res) != "a\uFFFD\uFFFDb" {
			t.Errorf("handler = %q, %v", texts(res), err)
		}
	})
}

// Proves that an image is measured before it is decoded: a PNG that would
// decode to 256 MB becomes a note at the cost of its header, the text
// beside it kept. Memory, not time, is what is measured.
func TestImageBomb(t *testing.T) {
	p, _, err := pipeProvider(t, "image-bomb")
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.CallToolResult(context.Background(), "echo", map[string]any{"side": 8000})
	if err != nil {
		t.Fatal(err)
	}
	var got tool.Reply
	alloc := allocated(func() { got = mcpclient.ToReply(res) })
	if want := `["before the image","` + imageNote + `"]`; texts(got) != want {
		t.Errorf("ToReply = %s, want %s", texts(got), want)
	}
	if alloc > 8<<20 {
		t.Errorf("converting the result allocated %d MB", alloc>>20)
	}
}

// Proves the bound sits where MaxImagePixels says: an image of exactly that
// many pixels reaches the model, one more row does not.
func TestImageBound(t *testing.T) {
	side := maxSide(t)
	for _, tc := range []struct {
		height int
		image  bool
	}{{side, true}, {side + 1, false}} {
		res := mcpclient.ToReply(&mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{MIMEType: "image/png", Data: hostile.PNGBomb(side, tc.height)},
		}})
		_, isImage := res.Parts[0].(tool.ImagePart)
		if isImage != tc.image {
			t.Errorf("%dx%d: image part %v, want %v", side, tc.height, isImage, tc.image)
		}
	}
}

// Proves that one result's images are decoded up to four times
// MaxImagePixels in all: after four files that each declare the most
// pixels, even a small image is a note. A decoder allocates the pixels
// before it reads them, so the four cost their pixels though they are cut
// short after the header.
func TestResultImageBudget(t *testing.T) {
	side := maxSide(t)
	cut := hostile.PNGBomb(side, side)[:8+25+8+2] // signature, IHDR, IDAT's start
	small := hostile.PNGBomb(4, 4)
	img := func(data []byte) mcp.Content { return &mcp.ImageContent{MIMEType: "image/png", Data: data} }
	for _, tc := range []struct {
		cuts  int
		image bool
	}{{3, true}, {4, false}} {
		var content []mcp.Content
		for range tc.cuts {
			content = append(content, img(cut))
		}
		res := mcpclient.ToReply(&mcp.CallToolResult{Content: append(content, img(small))})
		if _, isImage := res.Parts[len(res.Parts)-1].(tool.ImagePart); isImage != tc.image {
			t.Errorf("after %d images of %d pixels: the small one an image %v, want %v", tc.cuts, side*side, isImage, tc.image)
		}
	}
}

// maxSide is the side of a square image of MaxImagePixels pixels.
func maxSide(t *testing.T) int {
	side := 1
	for side*side < mcpclient.MaxImagePixels {
		side *= 2
	}
	if side*side != mcpclient.MaxImagePixels {
		t.Fatalf("MaxImagePixels %d is not a square: adjust the test", mcpclient.MaxImagePixels)
	}
	return side
}

// Proves that a GIF's frames after the first cost nothing to check: only
// the first is decoded (each frame lies within the logical screen that
// DecodeConfig reports, or the GIF does not decode).
func TestGIFFrames(t *testing.T) {
	data := hostile.ManyFramesGIF(10000, 200)
	var res tool.Reply
	alloc := allocated(func() {
		res = mcpclient.ToReply(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/gif", Data: data}}})
	})
	if img, ok := res.Parts[0].(tool.ImagePart); !ok || !bytes.Equal(img.Data, data) {
		t.Errorf("the GIF did not reach the model whole: %T", res.Parts[0])
	}
	if alloc > 4<<20 {
		t.Errorf("checking a GIF of %d bytes allocated %d MB", len(data), alloc>>20)
	}
}

// allocated returns the bytes f allocated (on any goroutine).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// texts returns a result's text parts joined by newlines.
func texts(res tool.Reply) string {
	var parts []string
	for _, p := range res.Parts {
		if t, ok := p.(tool.TextPart); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
