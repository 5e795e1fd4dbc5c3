package mcpclient

import (
	"context"
	"encoding/binary"
	"image"

	"golang.org/x/sync/semaphore"
)

// maxDecodeBytes bounds what decoding one image may cost, estimated from
// its header before any pixel is decoded ([decodeCost]): 80 MiB, five
// bytes a pixel of [MaxImagePixels], so that an 8-bit RGBA PNG or a
// baseline photograph of the most pixels decodes, and a 16-bit PNG, an
// interlaced one, a progressive or CMYK JPEG or a lossless WebP of that
// size, each of which costs its decoder several times its pixels, is
// described instead.
const maxDecodeBytes = 5 * MaxImagePixels

// decoding is the memory the image decoders of the whole process may hold
// at once, each decode reserving its estimated cost first: one image of
// the most cost, or many small ones. It is shared by every provider, since
// memory is the process's: a bound per provider would be multiplied by the
// servers of a toolset or a gateway, and a bound per call by the calls an
// agent runs at once.
var decoding = semaphore.NewWeighted(maxDecodeBytes)

// decodeOverhead is what a decoder holds besides its pixels: a zlib or
// LZW window, row buffers, tables.
const decodeOverhead = 256 << 10

// decodeCost estimates the bytes image.Decode allocates to decode data,
// whose header DecodeConfig read as cfg in format (one of visionFormats),
// from what the header says: the image at the depth and color model the
// decoder gives it, and what else it keeps for the whole image at once
// (a progressive JPEG's coefficients, an interlaced PNG's passes, a
// lossless WebP's Huffman groups). It errs high.
func decodeCost(data []byte, cfg image.Config, format string) int64 {
	pixels := int64(cfg.Width) * int64(cfg.Height)
	switch format {
	case "png":
		return pngCost(data, cfg, pixels) + decodeOverhead
	case "jpeg":
		return jpegCost(data, cfg, pixels) + decodeOverhead
	case "gif":
		return pixels + decodeOverhead // the first frame, one byte a pixel
	case "webp":
		return webpCost(data, pixels) + decodeOverhead
	}
	return -1
}

// pngCost is what Go's PNG decoder allocates: an image of its color
// type's depth (image.Gray, Gray16, RGBA, RGBA64, NRGBA, NRGBA64 or
// Paletted: 1 to 8 bytes a pixel; a gray or truecolor image with a
// transparent color is an NRGBA or NRGBA64); as much again for an
// interlaced image, whose passes are images of their own; and two rows.
func pngCost(data []byte, cfg image.Config, pixels int64) int64 {
	if len(data) < 29 { // the signature and IHDR, which DecodeConfig read
		return -1
	}
	depth, colorType, interlaced := data[24], data[25], data[28] != 0
	var perPixel int64
	switch {
	case colorType == 3:
		perPixel = 1
	case colorType == 0 && !pngTransparent(data):
		perPixel = max(1, int64(depth)/8)
	case depth == 16:
		perPixel = 8
	default:
		perPixel = 4
	}
	cost := perPixel * pixels
	if interlaced {
		cost *= 2
	}
	return cost + 2*(1+8*int64(cfg.Width))
}

// pngTransparent reports whether a PNG has a tRNS chunk before its image
// data, where the chunk must be.
func pngTransparent(data []byte) bool {
	for i := 8; i+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[i:]))
		switch string(data[i+4 : i+8]) {
		case "tRNS":
			return true
		case "IDAT":
			return false
		}
		if n > int64(len(data)-i-12) {
			return true // cut short: as if it had one
		}
		i += 12 + int(n)
	}
	return true
}

// jpegCost is what Go's JPEG decoder allocates: the planes of its
// components, each at its sampling, over whole blocks; for four components
// (CMYK), the CMYK image it makes of them besides (4 bytes a pixel); for
// a progressive JPEG, a 256-byte block of coefficients for every 8x8 block
// of every component, 4 bytes a sample. A frame header it cannot read is
// costed as the worst: four components, progressive.
func jpegCost(data []byte, cfg image.Config, pixels int64) int64 {
	progressive, samples, components, ok := jpegFrame(data, cfg)
	if !ok {
		return 24 * pixels
	}
	cost := samples
	if components == 4 {
		cost += 4 * pixels
	}
	if progressive {
		cost += 4 * samples
	}
	return cost
}

// jpegFrame reads the frame header (SOF0, SOF1 or SOF2, the ones Go
// decodes) of a JPEG whose size is cfg's: whether it is progressive, and
// the samples of all its components over whole blocks (each component at
// its sampling factors, the image rounded up to whole MCUs).
func jpegFrame(data []byte, cfg image.Config) (progressive bool, samples int64, components int, ok bool) {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return false, 0, 0, false
		}
		marker := data[i+1]
		switch {
		case marker == 0xff: // fill
			i++
			continue
		case marker == 0x01 || marker >= 0xd0 && marker <= 0xd9: // no length
			i += 2
			continue
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return false, 0, 0, false
		}
		seg := data[i+4 : i+2+n]
		switch marker {
		case 0xc0, 0xc1, 0xc2:
			samples, components, ok := frameSamples(seg, cfg)
			return marker == 0xc2, samples, components, ok
		case 0xda: // a scan before any frame
			return false, 0, 0, false
		}
		i += 2 + n
	}
	return false, 0, 0, false
}

// frameSamples reads a frame header's components: the samples of all of
// them over whole MCUs, and how many there are.
func frameSamples(seg []byte, cfg image.Config) (samples int64, components int, ok bool) {
	if len(seg) < 6 {
		return 0, 0, false
	}
	components = int(seg[5])
	if components == 0 || len(seg) < 6+3*components {
		return 0, 0, false
	}
	hmax, vmax := 1, 1
	for c := range components {
		hv := seg[6+3*c+1]
		hmax, vmax = max(hmax, int(hv>>4)), max(vmax, int(hv&0x0f))
	}
	mcusX := int64((cfg.Width + 8*hmax - 1) / (8 * hmax))
	mcusY := int64((cfg.Height + 8*vmax - 1) / (8 * vmax))
	for c := range components {
		hv := seg[6+3*c+1]
		samples += mcusX * int64(hv>>4) * mcusY * int64(hv&0x0f) * 64
	}
	return samples, components, true
}

// maxHuffmanGroup is what x/image's lossless WebP decoder may allocate for
// one group of its Huffman trees (five trees of at most 2×2328−1 nodes of
// 8 bytes, with their look-up tables), and maxHuffmanGroups how many
// groups it takes at most: a stream of a few kilobytes may ask for all.
const (
	maxHuffmanGroup  = 200 << 10
	maxHuffmanGroups = 2600
)

// webpCost is what x/image's WebP decoder allocates: for a simple lossy
// image (its first chunk VP8, an image.YCbCr at 4:2:0), 2 bytes a pixel;
// for any other (VP8L, lossless; VP8X, which may hold a lossless image or
// alpha plane whatever its header says), its pixels 4 bytes each twice
// over (a transform may copy them), an alpha plane, and as many groups of
// Huffman trees as its tiles of 4 pixels may ask for, which no header
// says.
func webpCost(data []byte, pixels int64) int64 {
	if len(data) >= 16 && string(data[12:16]) == "VP8 " {
		return 2 * pixels
	}
	groups := min(maxHuffmanGroups, (pixels+3)/4)
	return 11*pixels + groups*maxHuffmanGroup
}

// reserve waits until the decoders of the process may take cost more
// bytes, and returns the function that gives them back; false if ctx ended
// first.
func reserve(ctx context.Context, cost int64) (release func(), ok bool) {
	if err := decoding.Acquire(ctx, cost); err != nil {
		return nil, false
	}
	return func() { decoding.Release(cost) }, true
}
