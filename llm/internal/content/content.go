// Package content holds what the vendor packages of llm do alike to message
// content: turning images into text for a model without vision.
package content

import "github.com/mcpbridge/mcpbridge/tool"

// TextOnly returns parts with each image replaced by a [tool.ImageMark] text
// part, so a model that does not read images still learns that one was
// there. It returns parts itself when there is no image.
func TextOnly(parts []tool.Part) []tool.Part {
	if !(tool.Result{Parts: parts}).HasImages() {
		return parts
	}
	out := make([]tool.Part, len(parts))
	for i, p := range parts {
		if _, ok := p.(tool.ImagePart); ok {
			p = tool.TextPart{Text: tool.ImageMark}
		}
		out[i] = p
	}
	return out
}
