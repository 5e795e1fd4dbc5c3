package form_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/form"
)

// FuzzParse checks that any requested schema a server sends is parsed
// or refused, never a panic, and that a form it gives reads any typed text
// and checks any content without one either; an answer made of the parsed
// texts passes the form's own check.
func FuzzParse(f *testing.F) {
	f.Add([]byte(everyKind), "Ada")
	f.Add([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":5}},"required":["n"]}`), "7")
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[{"const":"x"}]}}}}`), "1,1")
	f.Fuzz(func(t *testing.T, schema []byte, text string) {
		form, err := form.Parse(json.RawMessage(schema))
		if err != nil {
			return
		}
		content := map[string]any{}
		for _, fd := range form.Fields {
			if v, err := fd.Parse(text); err == nil {
				content[fd.Name] = v
			}
		}
		complete := len(content) == len(form.Fields)
		if err := form.Check(content); err != nil && complete {
			t.Fatalf("the parsed answer %v fails the form: %v", content, err)
		}
		var sent map[string]any
		if json.Unmarshal([]byte(text), &sent) == nil {
			_ = form.Check(sent)
		}
	})
}
