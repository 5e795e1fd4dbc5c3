package mcpclient

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// An image part comes from a server, which may be hostile: whatever its
// bytes, reading it ends with an image a model can decode or none, never a
// panic, and a PNG's repair only ever drops chunks.
func FuzzVisionImage(f *testing.F) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		f.Fatal(err)
	}
	good := b.Bytes()
	f.Add(good)
	// A bad ancillary chunk (tEXt, CRC wrong) after the header chunk.
	text := []byte{0, 0, 0, 1, 't', 'E', 'X', 't', 'x', 0, 0, 0, 0}
	f.Add(append(append(append([]byte{}, good[:33]...), text...), good[33:]...))
	f.Add([]byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	f.Add(good[:20])
	f.Fuzz(func(t *testing.T, data []byte) {
		if repaired, changed := dropBadAncillaryChunks(data); changed && (len(repaired) >= len(data) || !bytes.Equal(repaired[:8], data[:8])) {
			t.Fatalf("repair of %d bytes gave %d bytes", len(data), len(repaired))
		}
		budget := int64(MaxImagePixels)
		mime, out, ok := visionImage(context.Background(), data, &budget)
		if !ok {
			return
		}
		if _, format, err := image.Decode(bytes.NewReader(out)); err != nil || visionFormats[format] != mime {
			t.Fatalf("kept an image as %s that decodes as %q: %v", mime, format, err)
		}
		if budget < 0 {
			t.Fatalf("budget overdrawn: %d", budget)
		}
	})
}
