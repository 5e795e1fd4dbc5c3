package demo

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// swatchSize is the edge length of the color_swatch image. It is big enough
// to be visible in a chat UI and small enough that the base64 payload stays
// a few hundred bytes.
const swatchSize = 64

// cssColors is deliberately a small subset of the CSS named colours: the
// tool exists to demonstrate image content, not to be a colour library.
var cssColors = map[string]color.RGBA{
	"black":         {0x00, 0x00, 0x00, 0xff},
	"white":         {0xff, 0xff, 0xff, 0xff},
	"red":           {0xff, 0x00, 0x00, 0xff},
	"green":         {0x00, 0x80, 0x00, 0xff},
	"lime":          {0x00, 0xff, 0x00, 0xff},
	"blue":          {0x00, 0x00, 0xff, 0xff},
	"navy":          {0x00, 0x00, 0x80, 0xff},
	"yellow":        {0xff, 0xff, 0x00, 0xff},
	"orange":        {0xff, 0xa5, 0x00, 0xff},
	"purple":        {0x80, 0x00, 0x80, 0xff},
	"rebeccapurple": {0x66, 0x33, 0x99, 0xff},
	"pink":          {0xff, 0xc0, 0xcb, 0xff},
	"brown":         {0xa5, 0x2a, 0x2a, 0xff},
	"gray":          {0x80, 0x80, 0x80, 0xff},
	"grey":          {0x80, 0x80, 0x80, 0xff},
	"cyan":          {0x00, 0xff, 0xff, 0xff},
	"magenta":       {0xff, 0x00, 0xff, 0xff},
	"teal":          {0x00, 0x80, 0x80, 0xff},
}

// colorNames lists the accepted names, for error messages that let a model
// correct itself on the next call.
func colorNames() string {
	return strings.Join(slices.Sorted(maps.Keys(cssColors)), ", ")
}

// parseColor accepts "#rgb", "#rrggbb" (the leading # is optional) or a name
// from cssColors, case-insensitively.
func parseColor(in string) (color.RGBA, error) {
	s := strings.ToLower(strings.TrimSpace(in))
	if c, ok := cssColors[s]; ok {
		return c, nil
	}
	hex := strings.TrimPrefix(s, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	if len(hex) == 6 {
		if v, err := strconv.ParseUint(hex, 16, 32); err == nil {
			return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}, nil
		}
	}
	return color.RGBA{}, fmt.Errorf("unknown colour %q: use #rgb, #rrggbb or one of: %s", in, colorNames())
}

// swatchPNG encodes a size×size PNG filled with c.
func swatchPNG(c color.RGBA, size int) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hexColor(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}
