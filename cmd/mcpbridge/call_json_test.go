package main_test

import (
	"bytes"
	"image/png"
	"testing"
)

// call --json prints the result as mcpbridge converted it, in the shape
// call's help documents: parts (an image as base64), structured content
// and isError; a tool that failed gives isError true and status 1.
func TestCallJSON(t *testing.T) {
	type callResult struct {
		Parts []struct {
			Type, Text, MIMEType string
			Data                 []byte
		}
		StructuredContent map[string]any
		IsError           bool
	}
	dir := t.TempDir()
	var res callResult
	r := mcpbridge(t, dir, "", nil, "call", "note_stats", "--json")
	expect(t, r, 0)
	decode(t, r.out, &res)
	if len(res.Parts) != 1 || res.Parts[0].Type != "text" || res.Parts[0].Text == "" || res.StructuredContent["count"] != 0.0 || res.IsError {
		t.Errorf("note_stats: %+v", res)
	}

	res = callResult{}
	r = mcpbridge(t, dir, "", nil, "call", "color_swatch", `{"color":"teal"}`, "--json")
	expect(t, r, 0)
	decode(t, r.out, &res)
	var image []byte
	for _, p := range res.Parts {
		if p.Type == "image" && p.MIMEType == "image/png" {
			image = p.Data
		}
	}
	if _, err := png.Decode(bytes.NewReader(image)); err != nil {
		t.Errorf("the image part: %v\n%s", err, r.out)
	}

	res = callResult{}
	r = mcpbridge(t, dir, "", nil, "call", "get_note", `{"id":7}`, "--json")
	expect(t, r, 1, `tool "get_note" failed`)
	decode(t, r.out, &res)
	if !res.IsError || len(res.Parts) != 1 || res.Parts[0].Text != "no note with id 7" {
		t.Errorf("get_note: %+v", res)
	}

	expect(t, mcpbridge(t, dir, "", nil, "call", "note_stats", "--json", "--raw"), 2, "not both")
}
