package modelio_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/tool"
)

// TextOnly marks each image as tool.Reply.Text does, leaving its input as
// it was.
func TestTextOnly(t *testing.T) {
	r := tool.Reply{Parts: []tool.Part{
		tool.TextPart{Text: "before"},
		tool.ImagePart{MIMEType: "image/png", Data: []byte{1}},
		tool.TextPart{Text: "after"},
	}}
	only := modelio.TextOnly(r.Parts)
	if len(only) != 3 || (tool.Reply{Parts: only}).HasImages() || only[1] != (tool.TextPart{Text: modelio.ImageMark}) {
		t.Fatalf("TextOnly = %#v", only)
	}
	if _, ok := r.Parts[1].(tool.ImagePart); !ok {
		t.Fatal("TextOnly changed its input")
	}
	if got := (tool.Reply{Parts: r.Parts[1:2]}).Text(); got != modelio.ImageMark {
		t.Fatalf("Reply.Text marks an image %q, TextOnly %q: a model reads one mark", got, modelio.ImageMark)
	}
}

func TestObjectArgs(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "{}",
		"null":             "{}",
		" ":                "{}",
		`{"a":1}`:          `{"a":1}`,
		`"{\"a\":1}"`:      `{"a":1}`,
		`"not an object"`:  `"not an object"`,
		`[1,2]`:            `[1,2]`,
		`"{\"a\":broken}"`: `"{\"a\":broken}"`,
	} {
		if got := string(modelio.Args(json.RawMessage(in))); got != want {
			t.Errorf("Args(%s) = %s, want %s", in, got, want)
		}
	}
}
