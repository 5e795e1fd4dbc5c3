// Package modelio adapts what crosses between a model and the tools: the
// arguments a model writes ([Args], applied once where they leave the
// model) and a reply for a model that reads no images ([TextOnly]).
package modelio

import (
	"bytes"
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/tool"
)

// ImageMark is what a model that reads no images is shown in place of
// each image: the mark tool.Reply.Text writes (TestTextOnly holds the
// two alike).
const ImageMark = "[image]"

// Args normalizes the arguments a model wrote for a call: none at all
// (nil, empty, or JSON null) becomes {}, and a JSON string that holds a JSON
// object (models sometimes stringify the arguments) becomes that object.
// Anything else is returned as it is. It is applied once, where arguments
// leave the model (the llm packages do, for every tool call they return);
// handlers check arguments, they do not repair them again.
func Args(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '"' {
		var s string
		if json.Unmarshal(trimmed, &s) == nil {
			inner := bytes.TrimSpace([]byte(s))
			if len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
				return json.RawMessage(inner)
			}
		}
	}
	return args
}

// TextOnly returns parts with each image replaced by a text part holding
// [ImageMark], for a model that does not take images: it still learns that an
// image was there. It returns parts itself when there is no image.
func TextOnly(parts []tool.Part) []tool.Part {
	if !(tool.Reply{Parts: parts}).HasImages() {
		return parts
	}
	out := make([]tool.Part, len(parts))
	for i, p := range parts {
		if _, ok := p.(tool.ImagePart); ok {
			p = tool.TextPart{Text: ImageMark}
		}
		out[i] = p
	}
	return out
}
