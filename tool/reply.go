package tool

import (
	"encoding/json"
	"strings"
)

// A Reply is what the model reads from a call: ordered parts (text and
// images), plus, apart from them, the structured content the tool returned
// for the host.
//
// A model never sees Structured by itself; a tool that wants the model to read
// its structured result also returns it as text, as MCP servers do.
type Reply struct {
	// Parts are the content, in the order the tool produced it.
	Parts []Part
	// Structured is the tool's structured result as raw JSON, or nil.
	Structured json.RawMessage
}

// A Part is one piece of a [Reply]: a [TextPart] or an [ImagePart].
type Part interface {
	isPart()
}

// A TextPart is text for the model to read.
type TextPart struct {
	// Text is what the model reads.
	Text string
}

// An ImagePart is an image for a model that takes images. Data is the decoded
// image (not base64); MIMEType is one a vision model accepts (image/png,
// image/jpeg, image/gif or image/webp).
type ImagePart struct {
	// MIMEType is the image's type: image/png, image/jpeg, image/gif or
	// image/webp.
	MIMEType string
	// Data is the decoded image.
	Data []byte
}

func (TextPart) isPart()  {}
func (ImagePart) isPart() {}

// Text returns a Reply of one text part.
func Text(s string) Reply { return Reply{Parts: []Part{TextPart{Text: s}}} }

// imageMark is what [Reply.Text] puts in place of each image.
const imageMark = "[image]"

// Text returns the result as one string, for a model that does not take
// images: the text parts in order, joined by newlines, each image replaced by
// "[image]".
func (r Reply) Text() string {
	if len(r.Parts) == 1 {
		if t, ok := r.Parts[0].(TextPart); ok {
			return t.Text
		}
	}
	var b strings.Builder
	for i, p := range r.Parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch p := p.(type) {
		case TextPart:
			b.WriteString(p.Text)
		case ImagePart:
			b.WriteString(imageMark)
		}
	}
	return b.String()
}

// HasImages reports whether any part is an image.
func (r Reply) HasImages() bool {
	for _, p := range r.Parts {
		if _, ok := p.(ImagePart); ok {
			return true
		}
	}
	return false
}
