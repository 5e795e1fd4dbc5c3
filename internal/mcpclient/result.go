package mcpclient

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	_ "image/gif" // decoders for the image formats vision models take
	_ "image/jpeg"
	_ "image/png"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "golang.org/x/image/webp"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// visionFormats maps the image formats vision models take, as the image
// package names them, to their MIME types.
var visionFormats = map[string]string{
	"png":  "image/png",
	"jpeg": "image/jpeg",
	"gif":  "image/gif",
	"webp": "image/webp",
}

// MaxImagePixels bounds the images [ToReply] decodes, by what their
// headers say, before any pixel is decoded: one image may have at most this
// many pixels (16,777,216: 4096x4096, a 5K screen, a 16-megapixel photo),
// and one result's images at most four times as many in all. Decoding takes
// 1 to 8 bytes a pixel whatever the file's size, so a PNG of 1.5 MB can
// declare 20000x20000 pixels and cost 1.6 GB; vendors scale anything past
// about 2048 pixels a side down anyway, so nothing a model could use is
// refused. The bound is fixed rather than an option for that reason.
//
// What the decoder would allocate is bounded too, as the header tells it:
// at most 80 MiB an image (so a 16-bit PNG, an interlaced one, or a
// progressive or CMYK JPEG of the most pixels, each several times the
// cost of its pixels, is a note), and 80 MiB decoding at once in the
// whole process, which concurrent calls wait for.
const MaxImagePixels = 1 << 24

// maxResultPixels bounds the pixels decoded for one result: a message
// within the transport's size limit can hold hundreds of small files that
// each declare MaxImagePixels.
const maxResultPixels = 4 * MaxImagePixels

// ToReply converts an MCP tool result into what a model reads, by the
// result-serialization rules:
//
//   - a single text part: that text;
//   - several parts and no image a vision model can take: one text, the JSON
//     array of the parts' strings;
//   - a PNG, JPEG, GIF or WebP image whose payload really decodes (checked by
//     decoding, not by the declared MIME type) and is within
//     [MaxImagePixels] and the bound on its decoder's memory: the parts in
//     the server's order, text as text, each such image as a
//     [tool.ImagePart] with the MIME type of what it decoded as;
//   - anything else (another image format, a corrupt payload, an image over
//     the bound, audio, a blob resource): a one-line note such as
//     "[audio content (audio/wav) not shown to the model]", never base64 text,
//     which is noise the model pays for and a bad image would fail the whole
//     request at the vendor.
//
// An embedded resource is its text when it is text: a text resource, or a
// blob of UTF-8 whose MIME type is a text type (text/*, JSON, XML, YAML,
// JavaScript) of no other charset. A resource link is a note with its URI,
// MIME type and name, such as `[resource link: file:///b.md (text/markdown)
// "b"]`, which the provider's handler ends with the server's name (`,
// server "files"]`): a model reads it with the tool an agent offers for
// resources ([tool.Set] Resources). The structured content is kept apart,
// in [tool.Reply.Structured], for the host.
func ToReply(res *mcp.CallToolResult) tool.Reply { return toResult(context.Background(), res, "") }

// toResult is [ToReply], a resource link naming server unless it is "";
// an image waits for its decoding while ctx lasts.
func toResult(ctx context.Context, res *mcp.CallToolResult, server string) tool.Reply {
	out := tool.Reply{Structured: structured(res)}
	if t, ok := onlyText(res.Content); ok {
		out.Parts = []tool.Part{tool.TextPart{Text: t}} // the common case, in two allocations
		return out
	}
	parts, images := partsOf(ctx, res.Content, server)
	if images {
		out.Parts = parts
		return out
	}
	out.Parts = []tool.Part{tool.TextPart{Text: joinTexts(parts)}}
	return out
}

// onlyText returns the text of contents that are one text part.
func onlyText(contents []mcp.Content) (string, bool) {
	if len(contents) != 1 {
		return "", false
	}
	t, ok := contents[0].(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return t.Text, true
}

// partsOf converts content parts one for one: an image a vision model
// takes as an image, anything else as its text or note. images reports
// whether any image was kept. A resource link names server unless it is "".
func partsOf(ctx context.Context, contents []mcp.Content, server string) (parts []tool.Part, images bool) {
	pixels := int64(maxResultPixels) // left to decode
	parts = make([]tool.Part, len(contents))
	for i, c := range contents {
		if img, ok := c.(*mcp.ImageContent); ok {
			if mime, data, ok := visionImage(ctx, img.Data, &pixels); ok {
				parts[i] = tool.ImagePart{MIMEType: mime, Data: data}
				images = true
				continue
			}
		}
		parts[i] = tool.TextPart{Text: contentText(c, server)}
	}
	return parts, images
}

// toText converts an MCP tool result into one string, the message of a
// [tool.FailedError]: a single part's text, or the JSON array of every
// part's string, a non-text part as its one-line note (images included: a
// string has no room for them). A resource link names server unless it
// is "".
func toText(res *mcp.CallToolResult, server string) string {
	parts := make([]tool.Part, len(res.Content))
	for i, c := range res.Content {
		parts[i] = tool.TextPart{Text: contentText(c, server)}
	}
	return joinTexts(parts)
}

func joinTexts(parts []tool.Part) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0].(tool.TextPart).Text
	}
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.(tool.TextPart).Text
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(texts)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// contentText is a content part as text: its text, or a note. A resource
// link names server unless it is "".
func contentText(c mcp.Content, server string) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return note("image", c.MIMEType)
	case *mcp.AudioContent:
		return note("audio", c.MIMEType)
	case *mcp.EmbeddedResource:
		if r := c.Resource; r != nil {
			if r.Blob == nil {
				return r.Text
			}
			if textual(r.MIMEType) && utf8.Valid(r.Blob) {
				return string(r.Blob)
			}
			return note("resource", r.MIMEType)
		}
		return note("resource", "")
	case *mcp.ResourceLink:
		return linkNote(c, server)
	}
	return note("unknown", "")
}

// maxLinkName bounds the name a resource link's note quotes.
const maxLinkName = 200

// linkNote is the line that stands for a resource link: its URI, MIME type
// and name, each made one line of the server's text, and the server's name
// when known, so that a model can ask for it.
func linkNote(c *mcp.ResourceLink, server string) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	b.WriteString(untrusted.Line(c.URI))
	if plausibleMIME(c.MIMEType) {
		fmt.Fprintf(&b, " (%s)", c.MIMEType)
	}
	if name := cmp.Or(c.Title, c.Name); name != "" {
		fmt.Fprintf(&b, " %q", untrusted.Cut(untrusted.Line(name), maxLinkName))
	}
	if server != "" {
		fmt.Fprintf(&b, ", server %q", server)
	}
	b.WriteString("]")
	return b.String()
}

// textual reports whether a MIME type says its content is text a model
// can read: text/*, or JSON, XML, YAML or JavaScript, in UTF-8 (or a charset
// of it) if a charset is given.
func textual(mimeType string) bool {
	mt, params, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "utf8" && cs != "us-ascii" {
		return false
	}
	typ, sub, _ := strings.Cut(mt, "/")
	if typ == "text" {
		return true
	}
	for _, suffix := range []string{"json", "xml", "yaml"} {
		if sub == suffix || strings.HasSuffix(sub, "+"+suffix) {
			return typ == "application"
		}
	}
	return mt == "application/javascript" || mt == "application/x-yaml"
}

// note is the one line that stands for a part the model is not shown. The
// MIME type is the server's, so only one that looks like one is named.
func note(kind, mime string) string {
	if !plausibleMIME(mime) {
		mime = "unknown type"
	}
	return fmt.Sprintf("[%s content (%s) not shown to the model]", kind, mime)
}

// plausibleMIME reports whether s looks like a MIME type: type/subtype,
// in the characters RFC 6838 allows, within its length limits.
func plausibleMIME(s string) bool {
	slash := strings.IndexByte(s, '/')
	if slash < 1 || slash == len(s)-1 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case i == slash:
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$&-^_.+", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// visionImage reports whether data decodes as an image in a format a vision
// model takes, with its MIME type and the bytes to send. The whole image is
// decoded, its first frame for a GIF (whose every frame lies within the
// size its header gives): a valid header on a corrupt body would still fail
// at the vendor. Only an image of at most [MaxImagePixels] pixels, and of
// at most *budget, is decoded, its pixels taken from *budget; and only one
// whose decoding costs at most maxDecodeBytes by its header
// ([decodeCost]), once the process's decoders may take that much more
// (decoding), which it waits for while ctx lasts.
//
// A PNG whose only fault is an ancillary chunk with a bad checksum (common in
// the wild: the MCP logo that server-everything serves has a broken iCCP
// chunk) is sent without that chunk, which is what a lenient decoder would
// read anyway.
func visionImage(ctx context.Context, data []byte, budget *int64) (mime string, out []byte, ok bool) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", nil, false
	}
	mime, ok = visionFormats[format]
	pixels := int64(cfg.Width) * int64(cfg.Height) // each below 2^32: no overflow
	if !ok || pixels > MaxImagePixels || pixels > *budget {
		return "", nil, false
	}
	cost := decodeCost(data, cfg, format)
	if cost < 0 || cost > maxDecodeBytes {
		return "", nil, false
	}
	*budget -= pixels
	release, ok := reserve(ctx, cost)
	if !ok {
		return "", nil, false
	}
	defer release()
	if _, _, err := image.Decode(bytes.NewReader(data)); err == nil {
		return mime, data, true
	}
	if format != "png" {
		return "", nil, false
	}
	repaired, changed := dropBadAncillaryChunks(data)
	if !changed {
		return "", nil, false
	}
	if _, _, err := image.Decode(bytes.NewReader(repaired)); err != nil {
		return "", nil, false
	}
	return mime, repaired, true
}

// dropBadAncillaryChunks returns a PNG without its ancillary chunks (those
// whose type starts with a lower-case letter, which a decoder may skip) whose
// CRC does not match. A malformed chunk structure is left as it is.
func dropBadAncillaryChunks(data []byte) ([]byte, bool) {
	const sigLen = 8
	if len(data) < sigLen {
		return data, false
	}
	out := append(make([]byte, 0, len(data)), data[:sigLen]...)
	changed := false
	for i := sigLen; i < len(data); {
		if len(data)-i < 12 {
			return data, false
		}
		n := int(binary.BigEndian.Uint32(data[i:]))
		if n < 0 || n > len(data)-i-12 {
			return data, false
		}
		chunk := data[i : i+12+n]
		typ := chunk[4:8]
		sum := binary.BigEndian.Uint32(chunk[8+n:])
		if typ[0]&0x20 != 0 && crc32.ChecksumIEEE(chunk[4:8+n]) != sum {
			changed = true
		} else {
			out = append(out, chunk...)
		}
		i += 12 + n
	}
	return out, changed
}

func structured(res *mcp.CallToolResult) json.RawMessage {
	if res.StructuredContent == nil {
		return nil
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		return raw
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil
	}
	return data
}
