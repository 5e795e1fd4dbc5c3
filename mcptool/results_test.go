package mcptool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/hostile"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

const imageNote = "[image content (image/png) not shown to the model]"

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
	var got tool.Result
	alloc := allocated(func() { got = mcptool.ToResult(res) })
	if want := `["before the image","` + imageNote + `"]`; texts(got) != want {
		t.Errorf("ToResult = %s, want %s", texts(got), want)
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
		res := mcptool.ToResult(&mcp.CallToolResult{Content: []mcp.Content{
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
		res := mcptool.ToResult(&mcp.CallToolResult{Content: append(content, img(small))})
		if _, isImage := res.Parts[len(res.Parts)-1].(tool.ImagePart); isImage != tc.image {
			t.Errorf("after %d images of %d pixels: the small one an image %v, want %v", tc.cuts, side*side, isImage, tc.image)
		}
	}
}

// maxSide is the side of a square image of MaxImagePixels pixels.
func maxSide(t *testing.T) int {
	side := 1
	for side*side < mcptool.MaxImagePixels {
		side *= 2
	}
	if side*side != mcptool.MaxImagePixels {
		t.Fatalf("MaxImagePixels %d is not a square: adjust the test", mcptool.MaxImagePixels)
	}
	return side
}

// Proves that a GIF's frames after the first cost nothing to check: only
// the first is decoded (each frame lies within the logical screen that
// DecodeConfig reports, or the GIF does not decode).
func TestGIFFrames(t *testing.T) {
	data := hostile.ManyFramesGIF(10000, 200)
	var res tool.Result
	alloc := allocated(func() {
		res = mcptool.ToResult(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/gif", Data: data}}})
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
func texts(res tool.Result) string {
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
