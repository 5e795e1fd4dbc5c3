package mcpclient

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"testing"
	"testing/synctest"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// Proves that the cost decodeCost reads from a header is at least what Go's
// decoder allocates for the image, and not far above it, for each kind of
// image whose cost is not its pixels: depth, palette, chroma subsampling,
// CMYK, progressive scans (a cut one, as a bomb sends it).
func TestDecodeCostErrsHigh(t *testing.T) {
	const side = 512
	rect := image.Rect(0, 0, side, side)
	encode := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	withPNG := func(img image.Image) []byte {
		return encode(func(b *bytes.Buffer) error { return png.Encode(b, img) })
	}
	withJPEG := func(img image.Image) []byte {
		return encode(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) })
	}
	for name, data := range map[string][]byte{
		"png rgba":       withPNG(image.NewNRGBA(rect)),
		"png rgba64":     withPNG(image.NewNRGBA64(rect)),
		"png gray":       withPNG(image.NewGray(rect)),
		"png paletted":   withPNG(image.NewPaletted(rect, color.Palette{color.Black, color.White})),
		"jpeg ycbcr":     withJPEG(image.NewRGBA(rect)),
		"jpeg gray":      withJPEG(image.NewGray(rect)),
		"jpeg cmyk bomb": hostile.ProgressiveJPEGBomb(side),
		"png16 bomb":     hostile.DeepPNGBomb(side, side, 16),
		"gif": encode(func(b *bytes.Buffer) error {
			return gif.Encode(b, image.NewPaletted(rect, color.Palette{color.Black}), nil)
		}),
	} {
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cost := decodeCost(data, cfg, format)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		image.Decode(bytes.NewReader(data))
		runtime.ReadMemStats(&after)
		spent := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: estimated %d KiB, allocated %d KiB", name, cost>>10, spent>>10)
		if cost < spent || cost > 3*spent+decodeOverhead {
			t.Errorf("%s: estimated %d bytes, the decoder allocated %d", name, cost, spent)
		}
	}
}

// Proves that the decoders of the whole process share one budget: while
// most of it is taken (by other calls' decoding), an image that would take
// more waits, and is not decoded if its call ends first, where one that
// fits is decoded at once; the one waiting is decoded as soon as the
// budget is given back.
func TestDecodersShareOneBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big, small := hostile.PNGBomb(1024, 1024), hostile.PNGBomb(16, 16)
		decode := func(ctx context.Context, data []byte) <-chan bool {
			done := make(chan bool, 1)
			go func() {
				budget := int64(maxResultPixels)
				_, _, ok := visionImage(ctx, data, &budget)
				done <- ok
			}()
			return done
		}
		const free = 1 << 20
		if err := decoding.Acquire(t.Context(), maxDecodeBytes-free); err != nil {
			t.Fatal(err)
		}
		if !<-decode(t.Context(), small) {
			t.Error("an image of 1 KiB was not decoded with 1 MiB of the budget free")
		}
		waiting := decode(t.Context(), big)
		ctx, cancel := context.WithCancel(t.Context())
		givenUp := decode(ctx, big)
		synctest.Wait()
		select {
		case <-waiting:
			t.Fatal("an image of 4 MiB was decoded with 1 MiB of the budget free")
		case <-givenUp:
			t.Fatal("an image of 4 MiB was decoded with 1 MiB of the budget free")
		default:
		}
		cancel()
		if <-givenUp {
			t.Error("an image whose call ended while it waited was decoded")
		}
		decoding.Release(maxDecodeBytes - free)
		if !<-waiting {
			t.Error("an image of 4 MiB was not decoded once the budget was given back")
		}
	})
}
