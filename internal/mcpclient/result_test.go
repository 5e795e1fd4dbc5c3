package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A 1x1 lossless WebP; Go's standard library has no WebP encoder.
const webp1x1 = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

// bmp1x1 is a 1x1 BMP: a real image, in a format vision models do not take.
var bmp1x1 = []byte{
	'B', 'M', 58, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0,
	0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 0,
}

func TestResultSerialization(t *testing.T) {
	pngData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	jpegData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	gifData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) })
	webpData, _ := base64.StdEncoding.DecodeString(webp1x1)
	corrupt := append(append([]byte{}, pngData[:40]...), bytes.Repeat([]byte{0xAB}, 60)...)
	badAncillary := withBadTextChunk(pngData)

	text := func(s string) mcp.Content { return &mcp.TextContent{Text: s} }
	img := func(mime string, data []byte) mcp.Content { return &mcp.ImageContent{MIMEType: mime, Data: data} }

	for _, tc := range []struct {
		name     string
		content  []mcp.Content
		wantText string   // what a model reads of a result whose images are notes (and a FailedError's message)
		wantMIME []string // the handler's image parts, in order; nil for a text-only result
	}{
		{"one text", []mcp.Content{text("hello")}, "hello", nil},
		{"many texts", []mcp.Content{text("a"), text(`b "quoted" <tag>`)}, `["a","b \"quoted\" <tag>"]`, nil},
		{"png", []mcp.Content{text("chart:"), img("image/png", pngData)}, `["chart:","[image content (image/png) not shown to the model]"]`, []string{"image/png"}},
		{"jpeg", []mcp.Content{img("image/jpeg", jpegData)}, `[image content (image/jpeg) not shown to the model]`, []string{"image/jpeg"}},
		{"gif", []mcp.Content{img("image/gif", gifData)}, `[image content (image/gif) not shown to the model]`, []string{"image/gif"}},
		{"webp", []mcp.Content{img("image/webp", webpData)}, `[image content (image/webp) not shown to the model]`, []string{"image/webp"}},
		{"mislabelled png", []mcp.Content{img("image/jpeg", pngData)}, `[image content (image/jpeg) not shown to the model]`, []string{"image/png"}},
		{"png with a broken ancillary chunk", []mcp.Content{img("image/png", badAncillary)}, `[image content (image/png) not shown to the model]`, []string{"image/png"}},
		{"bmp", []mcp.Content{img("image/bmp", bmp1x1)}, `[image content (image/bmp) not shown to the model]`, nil},
		{"corrupt png", []mcp.Content{img("image/png", corrupt)}, `[image content (image/png) not shown to the model]`, nil},
		{"audio", []mcp.Content{text("said:"), &mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....WAVE")}}, `["said:","[audio content (audio/wav) not shown to the model]"]`, nil},
		{"blob resource", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7")}}}, `[resource content (application/pdf) not shown to the model]`, nil},
		{"text resource", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", Text: "file text"}}}, `file text`, nil},
		{"text blob resource", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.json", MIMEType: "application/ld+json; charset=utf-8", Blob: []byte(`{"a":1}`)}}}, `{"a":1}`, nil},
		{"latin-1 blob resource", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain; charset=iso-8859-1", Blob: []byte("caf\xe9")}}}, `[resource content (unknown type) not shown to the model]`, nil},
		{"binary blob called text", []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Blob: []byte{0xff, 0xfe, 0}}}}, `[resource content (text/plain) not shown to the model]`, nil},
		{"resource link", []mcp.Content{&mcp.ResourceLink{URI: "file:///b.txt", Name: "b"}}, `[resource link: file:///b.txt "b"]`, nil},
		{"described link", []mcp.Content{&mcp.ResourceLink{URI: "file:///c.md", Name: "c", Title: "The C\nfile", MIMEType: "text/markdown"}}, `[resource link: file:///c.md (text/markdown) "The C file"]`, nil},
		{"png among others", []mcp.Content{img("image/png", pngData), img("image/bmp", bmp1x1), text("end")}, "", []string{"image/png"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: tc.content}
			if tc.wantText != "" && tc.wantMIME == nil {
				if got := mcpclient.ToReply(res).Text(); got != tc.wantText {
					t.Errorf("ToReply(res).Text() = %s\nwant                   %s", got, tc.wantText)
				}
			}
			out := mcpclient.ToReply(res)
			var mimes []string
			for _, p := range out.Parts {
				switch p := p.(type) {
				case tool.ImagePart:
					mimes = append(mimes, p.MIMEType)
				case tool.TextPart:
					if strings.Contains(p.Text, base64.StdEncoding.EncodeToString(pngData)[:16]) {
						t.Error("base64 image data reached the model as text")
					}
				}
			}
			if strings.Join(mimes, ",") != strings.Join(tc.wantMIME, ",") {
				t.Fatalf("image parts %v, want %v", mimes, tc.wantMIME)
			}
			if tc.wantMIME == nil {
				if len(out.Parts) != 1 || out.Text() != tc.wantText {
					t.Fatalf("text-only result %q, want %q", out.Text(), tc.wantText)
				}
				return
			}
			if len(out.Parts) != len(tc.content) {
				t.Fatalf("%d parts, want the server's %d in order", len(out.Parts), len(tc.content))
			}
		})
	}
}

func TestImageEndToEnd(t *testing.T) {
	p, _ := inProcess(t, demo.New())
	res := call(t, p.Handler(), "color_swatch", `{"color": "#ff8800"}`)
	if len(res.Parts) != 2 {
		t.Fatalf("parts %#v", res.Parts)
	}
	if _, ok := res.Parts[0].(tool.TextPart); !ok {
		t.Fatal("first part is not the text")
	}
	img, ok := res.Parts[1].(tool.ImagePart)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("second part %#v", res.Parts[1])
	}
	decoded, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := decoded.At(0, 0).RGBA(); r>>8 != 0xff || g>>8 != 0x88 || b != 0 {
		t.Fatalf("colour %x %x %x", r>>8, g>>8, b>>8)
	}
	if res.Text() != "64x64 swatch of #ff8800\n[image]" {
		t.Fatalf("text for a model without vision: %q", res.Text())
	}
}

func TestStructuredKeptApart(t *testing.T) {
	p, _ := inProcess(t, demo.New())
	call(t, p.Handler(), "add_note", `{"title":"a","body":"b","tags":["x"]}`)
	res := call(t, p.Handler(), "note_stats", ``)
	var stats struct{ Count int }
	if err := json.Unmarshal(res.Structured, &stats); err != nil || stats.Count != 1 {
		t.Fatalf("structured %s: %v", res.Structured, err)
	}
	if strings.Contains(res.Text(), "{") {
		t.Fatalf("the model's text should be the server's text, not the structured JSON: %q", res.Text())
	}
}

// withBadTextChunk inserts a tEXt chunk with a wrong CRC after the PNG's
// IHDR chunk, as some real-world images have.
func withBadTextChunk(pngData []byte) []byte {
	const ihdrEnd = 8 + 12 + 13
	text := []byte("tEXtComment\x00made by hand")
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(text)-4))
	chunk = append(chunk, text...)
	chunk = binary.BigEndian.AppendUint32(chunk, 0xDEADBEEF)
	out := append([]byte{}, pngData[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, pngData[ihdrEnd:]...)
}

func TestBrokenAncillaryChunkIsDropped(t *testing.T) {
	pngData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	bad := withBadTextChunk(pngData)
	if _, err := png.Decode(bytes.NewReader(bad)); err == nil {
		t.Fatal("the test image should fail a strict decoder")
	}
	out := mcpclient.ToReply(&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: bad}}})
	img := out.Parts[0].(tool.ImagePart)
	if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Fatalf("the image handed over does not decode: %v", err)
	}
	if !bytes.Equal(img.Data, pngData) {
		t.Fatal("want the image without the broken chunk")
	}
}

// A server with resources offers a way to read them beside its tools, and
// the links its results hold name the server, so a model can follow them.
func TestOfferReadsResources(t *testing.T) {
	ctx := context.Background()
	s := newServer("files")
	addTool(s, "find", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///a.md", Name: "a", MIMEType: "text/markdown"}}}, nil
	})
	pngData := encoded(t, func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	for uri, c := range map[string]*mcp.ResourceContents{
		"file:///a.md":     {MIMEType: "text/markdown", Text: "# A"},
		"file:///a.json":   {MIMEType: "application/json", Blob: []byte(`{"a":1}`)},
		"file:///a.png":    {MIMEType: "image/png", Blob: pngData},
		"file:///a.bin":    {MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}},
		"file:///fake.png": {MIMEType: "image/png", Blob: []byte("not a png")},
	} {
		c.URI = uri
		s.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
		})
	}
	p, _ := inProcess(t, s)
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := call(t, set.Handler, "find", `{}`).Text(); got != `[resource link: file:///a.md (text/markdown) "a", server "notes"]` {
		t.Fatalf("the link: %s", got)
	}
	read := set.Servers["notes"].Resources
	if len(set.Servers) != 1 || read == nil {
		t.Fatalf("servers %v; want the provider's resources, by its name", set.Servers)
	}
	for uri, want := range map[string]string{
		"file:///a.md":     "# A",
		"file:///a.json":   `{"a":1}`,
		"file:///a.bin":    "[resource content (application/octet-stream) not shown to the model]",
		"file:///fake.png": "[image content (image/png) not shown to the model]",
	} {
		if res, err := read(ctx, uri); err != nil || res.Text() != want {
			t.Errorf("%s: %q, %v; want %q", uri, res.Text(), err, want)
		}
	}
	if res, err := read(ctx, "file:///a.png"); err != nil || len(res.Parts) != 1 || res.Parts[0].(tool.ImagePart).MIMEType != "image/png" {
		t.Fatalf("the image: %#v, %v", res.Parts, err)
	}
	if _, err := read(ctx, "file:///none"); err == nil || !strings.Contains(err.Error(), "file:///none") {
		t.Fatalf("a missing resource: %v", err)
	}

	// A server without resources offers none to read.
	p, _ = inProcess(t, outputServer("", ""))
	if set, err := p.Offer(ctx); err != nil || set.Servers[p.Name()].Resources != nil {
		t.Fatalf("no resources capability: %v, %v", set.Servers, err)
	}
	// The demo has resources.
	p, _ = inProcess(t, demo.New())
	if set, err := p.Offer(ctx); err != nil || set.Servers["notes"].Resources == nil {
		t.Fatalf("the demo: %v, %v", set.Servers, err)
	}
}

// server-everything's links and embedded resources, as a model reads them:
// each link names its server and reads through the offered Set, and a text
// blob, embedded or read, is text.
func TestServerEverythingResources(t *testing.T) {
	p := everything(t)
	ctx := context.Background()
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links := call(t, set.Handler, "get-resource-links", `{"count": 2}`).Text()
	for _, want := range []string{
		`[resource link: demo://resource/dynamic/blob/1 (text/plain) \"Blob Resource 1\", server \"everything\"]`,
		`[resource link: demo://resource/dynamic/text/2 (text/plain) \"Text Resource 2\", server \"everything\"]`,
	} {
		if !strings.Contains(links, want) {
			t.Fatalf("links %s\nlack %s", links, want)
		}
	}
	read := set.Servers["everything"].Resources
	if read == nil {
		t.Fatalf("no resources to read: %v", set.Servers)
	}
	if res, err := read(ctx, "demo://resource/dynamic/blob/1"); err != nil || !strings.HasPrefix(res.Text(), "Resource 1: This is a base64 blob") {
		t.Fatalf("the blob read: %q, %v", res.Text(), err)
	}
	ref := call(t, set.Handler, "get-resource-reference", `{"resourceType": "Blob", "resourceId": 3}`).Text()
	if !strings.Contains(ref, "Resource 3: This is a base64 blob") {
		t.Fatalf("the embedded blob is not text: %s", ref)
	}
}
