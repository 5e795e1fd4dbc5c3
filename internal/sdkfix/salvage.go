package sdkfix

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Shape checks what the protocol asks of a tools/call result as a whole
// and go-sdk does not: an object (go-sdk takes null for an empty result)
// with a content array (go-sdk takes none for an empty one). The call of a
// result go-sdk decoded as empty checks it with the raw result ([Catch]).
func Shape(raw json.RawMessage) error {
	_, _, err := shape(raw)
	return err
}

// shape is [Shape], returning the result's members and its content parts.
// structuredContent may be any JSON value (SEP-2106); it and the rest are
// left to go-sdk.
func shape(raw json.RawMessage) (members map[string]json.RawMessage, parts []json.RawMessage, err error) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil, nil, errors.New("the result is null")
	}
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, nil, fmt.Errorf("the result is not a JSON object: %w", err)
	}
	content := bytes.TrimSpace(members["content"])
	if len(content) == 0 || string(content) == "null" {
		return nil, nil, errors.New("the result has no content")
	}
	if err := json.Unmarshal(content, &parts); err != nil {
		return nil, nil, errors.New("the result's content is not an array")
	}
	return members, parts, nil
}

// Salvage decodes the raw result of a tools/call that go-sdk could not
// decode whole (go-sdk fails the call for one bad part), keeping what it
// can: each content part go-sdk would refuse (no type or an unknown one, a
// member of the wrong JSON type, corrupt base64, not an object at all)
// becomes a text part holding note(kind, mimeType), the line that stands
// for a part the model is not shown, and the result goes through go-sdk's
// own decoding again. A result of the wrong shape (see [Shape]) is an
// error, as is one go-sdk still refuses: an isError that is not a boolean,
// nesting deeper than it takes.
func Salvage(raw json.RawMessage, note func(kind, mimeType string) string) (*mcp.CallToolResult, error) {
	members, parts, err := shape(raw)
	if err != nil {
		return nil, err
	}
	for i, part := range parts {
		if kind, mime, bad := badPart(part); bad {
			parts[i], _ = json.Marshal(&mcp.TextContent{Text: note(kind, mime)})
		}
	}
	if members["content"], err = json.Marshal(parts); err != nil {
		return nil, err
	}
	repaired, err := json.Marshal(members)
	if err != nil {
		return nil, err
	}
	return Decode(repaired)
}

// wirePart is a content part of a tool result with the members go-sdk
// decodes and their types (mcp.wireContent's), to tell beforehand whether
// it would refuse it.
type wirePart struct {
	Type        string                `json:"type"`
	Text        string                `json:"text"`
	MIMEType    string                `json:"mimeType"`
	Data        []byte                `json:"data"`
	Resource    *mcp.ResourceContents `json:"resource"`
	URI         string                `json:"uri"`
	Name        string                `json:"name"`
	Title       string                `json:"title"`
	Description string                `json:"description"`
	Size        *int64                `json:"size"`
	Meta        map[string]any        `json:"_meta"`
	Annotations *mcp.Annotations      `json:"annotations"`
	Icons       []mcp.Icon            `json:"icons"`
}

// partKinds names, for a note, the part types a tool result may hold.
var partKinds = map[string]string{
	"text":          "text",
	"image":         "image",
	"audio":         "audio",
	"resource":      "resource",
	"resource_link": "resource link",
}

// badPart reports whether go-sdk would refuse a content part of a tool
// result, and if so the kind and MIME type its note names.
func badPart(raw json.RawMessage) (kind, mime string, bad bool) {
	var p wirePart
	err := json.Unmarshal(raw, &p)
	if _, known := partKinds[p.Type]; err == nil && known {
		return "", "", false
	}
	// Name it from what can be read of it.
	var label struct {
		Type     string `json:"type"`
		MIMEType string `json:"mimeType"`
		Resource struct {
			MIMEType string `json:"mimeType"`
		} `json:"resource"`
	}
	json.Unmarshal(raw, &label)
	kind, known := partKinds[label.Type]
	if !known {
		kind = "unknown"
	}
	mime = label.MIMEType
	if label.Type == "resource" {
		mime = label.Resource.MIMEType
	}
	return kind, mime, true
}
