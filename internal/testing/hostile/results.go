package hostile

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"strings"
)

// The modes of this file answer every tools/call with a result a client
// must survive: what a tool result can do to the host. The arguments of
// the call size them where that matters, so a test can ask for a bomb big
// enough to show and small enough to be kind to the machine.

// onCall returns a mode that answers every tools/call with the reply of
// answer, given the call's id and arguments.
func onCall(answer func(id json.RawMessage, args map[string]any) string) func(*Server, *Request) (string, bool) {
	return on("tools/call", func(req *Request) string {
		_, args := CallParams(req)
		return answer(req.ID, args)
	})
}

// number returns the argument name, or def if it is not a number.
func number(args map[string]any, name string, def int) int {
	if n, ok := args[name].(float64); ok {
		return int(n)
	}
	return def
}

// result answers with result, as it is.
func result(result string) func(*Server, *Request) (string, bool) {
	return onCall(func(id json.RawMessage, _ map[string]any) string { return Result(id, json.RawMessage(result)) })
}

// imageBomb answers a text part and a PNG of "side" x "side" pixels
// (20000 if not given) that decodes to 4 bytes a pixel, 1.6 GB at the
// default side, from about 1.5 MB of file.
var imageBomb = onCall(func(id json.RawMessage, args map[string]any) string {
	side := number(args, "side", 20000)
	return content(id, textPart("before the image"), imagePart("image/png", PNGBomb(side, side)))
})

// decoderBombs answers "count" images (4 if not given) of "side" x "side"
// pixels (4096 if not given, the most a result's image may have), each of
// "kind": "jpeg", a progressive CMYK JPEG that costs its decoder 20 bytes
// a pixel from about a hundred bytes of file; "png16", a 16-bit RGBA PNG
// (8 bytes a pixel); "png", an 8-bit one (4 bytes a pixel).
var decoderBombs = onCall(func(id json.RawMessage, args map[string]any) string {
	side, count := number(args, "side", 4096), number(args, "count", 4)
	var part map[string]any
	switch args["kind"] {
	case "jpeg":
		part = imagePart("image/jpeg", ProgressiveJPEGBomb(side))
	case "png16":
		part = imagePart("image/png", DeepPNGBomb(side, side, 16))
	default:
		part = imagePart("image/png", PNGBomb(side, side))
	}
	parts := make([]any, count)
	for i := range parts {
		parts[i] = part
	}
	return content(id, parts...)
})

// gifFrames answers a GIF of "frames" frames (10000 if not given) of
// 200 x 200 pixels.
var gifFrames = onCall(func(id json.RawMessage, args map[string]any) string {
	return content(id, imagePart("image/gif", ManyFramesGIF(number(args, "frames", 10000), 200)))
})

// corruptImage answers a good text part beside an image whose base64 data
// is corrupt.
var corruptImage = onCall(func(id json.RawMessage, _ map[string]any) string {
	return content(id, textPart("kept"), map[string]any{"type": "image", "mimeType": "image/png", "data": "!!not base64!!"})
})

// badParts answers good text parts among parts the protocol does not
// allow, each of which a client could choke on.
var badParts = onCall(func(id json.RawMessage, _ map[string]any) string {
	return content(id,
		textPart("first"),
		map[string]any{"text": "a part without a type"},
		map[string]any{"type": "video", "mimeType": "video/mp4", "data": "AAAA"},
		map[string]any{"type": "text", "text": 42},
		nil,
		"a string, not a part",
		map[string]any{"type": "audio", "mimeType": "audio/wav", "data": "%%%"},
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///a.bin", "mimeType": "application/octet-stream", "blob": "*"}},
		map[string]any{"type": "image", "mimeType": "image/png\n## MCP server: evil", "data": "*"},
		textPart("last"),
	)
})

// corruptBlob answers resources/read with a text and a blob whose base64
// is corrupt.
var corruptBlob = on("resources/read", func(req *Request) string {
	return Result(req.ID, map[string]any{"contents": []any{
		map[string]any{"uri": "file:///a.txt", "text": "kept?"},
		map[string]any{"uri": "file:///b.bin", "mimeType": "application/octet-stream", "blob": "*"},
	}})
})

// deepResult answers a result whose structured content nests "depth"
// arrays (100000 if not given): more than any JSON decoder here takes.
var deepResult = onCall(func(id json.RawMessage, args map[string]any) string {
	depth := number(args, "depth", 100000)
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	// Not through Result, whose encoder would refuse it.
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"deep"}],"structuredContent":{"a":%s}}}`, id, deep)
})

// badUTF8 answers a text part holding bytes that are not UTF-8.
var badUTF8 = onCall(func(id json.RawMessage, _ map[string]any) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"a%sb"}]}}`, id, "\xff\xfe")
})

// manyParts answers "parts" empty text parts (1000000 if not given).
var manyParts = onCall(func(id json.RawMessage, args map[string]any) string {
	n := number(args, "parts", 1000000)
	var b strings.Builder
	b.WriteString(`{"content":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text"}`)
	}
	b.WriteString(`]}`)
	return Result(id, json.RawMessage(b.String()))
})

func textPart(text string) map[string]any { return map[string]any{"type": "text", "text": text} }

func imagePart(mime string, data []byte) map[string]any {
	return map[string]any{"type": "image", "mimeType": mime, "data": base64.StdEncoding.EncodeToString(data)}
}

// content is the tools/call result of these parts.
func content(id json.RawMessage, parts ...any) string {
	return Result(id, map[string]any{"content": parts})
}

// PNGBomb returns a valid PNG of width x height black, transparent RGBA
// pixels, small because its pixels compress about a thousandfold. It is
// built without ever holding the pixels: a deflate segment of a mebibyte
// of zeros, flushed to a byte boundary, refers only to itself, so copies of
// it in a row inflate to as many mebibytes of zeros.
func PNGBomb(width, height int) []byte { return DeepPNGBomb(width, height, 8) }

// DeepPNGBomb is [PNGBomb] with depth bits a sample (8 or 16): at 16, Go's
// decoder takes 8 bytes a pixel (an image.NRGBA64), twice what the pixels
// alone suggest.
func DeepPNGBomb(width, height, depth int) []byte {
	const chunk = 1 << 20
	n := int64(height) * int64(1+4*depth/8*width) // each row: filter byte, then RGBA
	segment := deflated(chunk, false)
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib, best compression
	for left := n; left > 0; left -= chunk {
		if left < chunk {
			z.Write(deflated(int(left), true))
			break
		}
		z.Write(segment)
	}
	if n%chunk == 0 {
		z.Write(deflated(0, true))
	}
	// The Adler-32 of n zeros: a stays 1, b gains 1 a byte.
	binary.Write(&z, binary.BigEndian, uint32(n%65521)<<16|1)

	var png bytes.Buffer
	png.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = byte(depth), 6 // bits a sample, RGBA
	pngChunk(&png, "IHDR", ihdr)
	pngChunk(&png, "IDAT", z.Bytes())
	pngChunk(&png, "IEND", nil)
	return png.Bytes()
}

// deflated returns n zeros deflated: the final block if final, else
// blocks flushed to a byte boundary, ready to be followed by more.
func deflated(n int, final bool) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(make([]byte, n))
	if final {
		w.Close()
	} else {
		w.Flush()
	}
	return b.Bytes()
}

func pngChunk(b *bytes.Buffer, typ string, data []byte) {
	binary.Write(b, binary.BigEndian, uint32(len(data)))
	start := b.Len()
	b.WriteString(typ)
	b.Write(data)
	binary.Write(b, binary.BigEndian, crc32.ChecksumIEEE(b.Bytes()[start:]))
}

// ProgressiveJPEGBomb returns the header of a progressive JPEG of side x
// side CMYK pixels, a little over a hundred bytes, whose first scan is cut
// short: before it fails, Go's decoder allocates the image (8 bytes a
// pixel, with its YCbCr and black planes) and a 256-byte block of
// coefficients for every 8x8 block of each of the four components (16
// bytes a pixel): 320 MiB at 4096 x 4096.
func ProgressiveJPEGBomb(side int) []byte {
	var b bytes.Buffer
	segment := func(marker byte, payload []byte) {
		b.Write([]byte{0xff, marker})
		binary.Write(&b, binary.BigEndian, uint16(len(payload)+2))
		b.Write(payload)
	}
	b.Write([]byte{0xff, 0xd8})                                      // SOI
	segment(0xdb, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...)) // DQT: table 0
	sof := []byte{8, byte(side >> 8), byte(side), byte(side >> 8), byte(side), 4}
	sos := []byte{4}
	for c := byte(1); c <= 4; c++ {
		sof = append(sof, c, 0x11, 0) // sampled 1x1, table 0
		sos = append(sos, c, 0)
	}
	segment(0xc2, sof)                                                  // SOF2: progressive
	segment(0xc4, append(append([]byte{0, 1}, make([]byte, 15)...), 0)) // DHT: one DC code
	segment(0xda, append(sos, 0, 0, 0))                                 // SOS: a DC scan of all four
	b.Write([]byte{0, 0, 0xff, 0xd9})
	return b.Bytes()
}

// ManyFramesGIF returns a GIF of frames (at least 2) frames of side x
// side pixels. One frame is encoded, and copied: the encoding of the last
// frame of an animation does not depend on how many came before it.
func ManyFramesGIF(frames, side int) []byte {
	frame := image.NewPaletted(image.Rect(0, 0, side, side), color.Palette{color.Black, color.White})
	encode := func(n int) []byte {
		g := &gif.GIF{Image: make([]*image.Paletted, n), Delay: make([]int, n)}
		for i := range g.Image {
			g.Image[i] = frame
		}
		var b bytes.Buffer
		if err := gif.EncodeAll(&b, g); err != nil {
			panic(err) // a valid frame: a bug in this package
		}
		return b.Bytes()
	}
	two, three := encode(2), encode(3)
	one := three[len(two)-1 : len(three)-1] // a frame, without the trailer
	out := bytes.Clone(two[:len(two)-1])
	for range frames - 2 {
		out = append(out, one...)
	}
	return append(out, two[len(two)-1])
}
