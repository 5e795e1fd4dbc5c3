package sdkfix

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Decode decodes the result of a tools/call as go-sdk's decoding does
// (mcp.CallToolResult's UnmarshalJSON): the same result, or a failure
// where go-sdk fails, but for the structured content, which is kept as the
// server wrote it (a json.RawMessage, the JSON go-sdk's decoded value
// stands for).
//
// go-sdk decodes each result with a decoder whose buffer is 32 KB,
// whatever the result's size (TestGoSDKDecodesEveryResultAnew). Decode
// reads the common shapes itself, in proportion to the result: text parts,
// and images and audio, each part with no member but its type and its
// text, or data and MIME type, and the result's _meta. Any other part (a
// resource, a part with annotations or _meta, a member of another type)
// it hands to go-sdk's decoding alone, and any other result whole (one
// with inputRequests or requestState, or that is not valid JSON).
// TestDecodeAgreesWithGoSDK and FuzzDecode hold it to go-sdk's decoding.
func Decode(raw json.RawMessage) (*mcp.CallToolResult, error) {
	if res, ok := decode(raw, false); ok {
		return res, nil
	}
	res := new(mcp.CallToolResult)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, err
	}
	if res.StructuredContent != nil {
		res.StructuredContent = structuredOf(raw, res.StructuredContent)
	}
	return res, nil
}

// DecodeContent is [Decode] but for the result's _meta, which it leaves
// out: for a result a model reads, which shows it nothing of _meta, and
// which go-sdk's servers fill in every result of 2026-07-28 (their
// serverInfo), at the cost of a map or two.
func DecodeContent(raw json.RawMessage) (*mcp.CallToolResult, error) {
	if res, ok := decode(raw, true); ok {
		return res, nil
	}
	res, err := Decode(raw)
	if res != nil {
		res.Meta = nil
	}
	return res, err
}

// completeResult is an empty result of resultType "complete", as go-sdk
// decodes one: go-sdk keeps the type in an unexported field, which a copy
// of this value carries, and writes it again when the result is encoded.
var completeResult = sync.OnceValue(func() mcp.CallToolResult {
	var res mcp.CallToolResult
	json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &res)
	res.Content = nil
	return res
})

// decode is [Decode] for the results it reads itself: ok false for any
// other, and for a result go-sdk would refuse; skipMeta leaves _meta out.
func decode(raw json.RawMessage, skipMeta bool) (res *mcp.CallToolResult, ok bool) {
	// go-sdk refuses what is not JSON, and nesting over 1000 levels.
	if !rawjson.Valid(raw, 1000) {
		return nil, false
	}
	var content, isError, structured, meta []byte
	complete := false
	if !rawjson.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "content":
			content = v
		case "isError":
			isError = v
		case "structuredContent":
			structured = v
		case "_meta":
			meta = v
		case "resultType":
			complete = string(v) == `"complete"`
			return complete || string(v) == "null"
		case "inputRequests", "requestState":
			return false
		}
		return true // a member go-sdk does not know: left alone
	}) {
		return nil, false
	}
	res = new(mcp.CallToolResult)
	if complete {
		*res = completeResult() // its resultType, which go-sdk keeps unexported
	}
	if len(meta) > 0 && string(meta) != "null" {
		// go-sdk's servers name themselves in every result of 2026-07-28
		// (io.modelcontextprotocol/serverInfo). Decoded into the map go-sdk
		// makes of it, which takes an object, and no number a float64 does
		// not hold: one go-sdk would refuse is refused left out too.
		if meta[0] != '{' || !rawjson.FloatsFit(meta) || !skipMeta && json.Unmarshal(meta, &res.Meta) != nil {
			return nil, false
		}
	}
	switch string(isError) {
	case "true":
		res.IsError = true
	case "", "false", "null":
	default:
		return nil, false
	}
	if len(structured) > 0 && string(structured) != "null" {
		// go-sdk decodes it into an any, which takes no number a float64
		// does not hold.
		if !rawjson.FloatsFit(structured) {
			return nil, false
		}
		res.StructuredContent = json.RawMessage(structured)
	}
	n := 0
	if len(content) > 0 && string(content) != "null" && !rawjson.Elements(content, func([]byte) bool { n++; return true }) {
		return nil, false
	}
	res.Content = make([]mcp.Content, 0, n)
	if n == 0 {
		return res, true
	}
	ok = rawjson.Elements(content, func(v []byte) bool {
		c, known := part(v)
		if !known {
			if c, known = goSDKPart(v); !known {
				return false
			}
		}
		res.Content = append(res.Content, c)
		return true
	})
	return res, ok
}

// part decodes a content part of the common shapes, as go-sdk's decoding
// does, and reports false for any other part, or one go-sdk would refuse.
func part(v []byte) (mcp.Content, bool) {
	var typ, text, data, mime []byte
	if !rawjson.Members(v, func(k, val []byte) bool {
		switch string(k) {
		case "type":
			typ = val
		case "text":
			text = val
		case "data":
			data = val
		case "mimeType":
			mime = val
		default:
			return false
		}
		return true
	}) {
		return nil, false
	}
	// The type as written, without escapes: one written otherwise goes to
	// go-sdk.
	var kind string
	switch string(typ) {
	case `"text"`:
		kind = "text"
	case `"image"`:
		kind = "image"
	case `"audio"`:
		kind = "audio"
	}
	var ok bool
	switch kind {
	case "text":
		s, ok := rawjson.String(text)
		if !ok || data != nil || mime != nil {
			return nil, false
		}
		return &mcp.TextContent{Text: s}, true
	case "image", "audio":
		if text != nil {
			return nil, false
		}
		var m string
		if mime != nil {
			if m, ok = rawjson.String(mime); !ok {
				return nil, false
			}
		}
		var b []byte
		if data != nil {
			if b, ok = base64Of(data); !ok {
				return nil, false
			}
		}
		if kind == "image" {
			return &mcp.ImageContent{Data: b, MIMEType: m}, true
		}
		return &mcp.AudioContent{Data: b, MIMEType: m}, true
	}
	return nil, false
}

// base64Of decodes the JSON string v of base64, as go-sdk's decoding of a
// []byte does.
func base64Of(v []byte) ([]byte, bool) {
	src := v
	if len(v) < 2 || v[0] != '"' {
		return nil, false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 {
		src = inner
	} else {
		s, ok := rawjson.String(v)
		if !ok {
			return nil, false
		}
		src = []byte(s)
	}
	dst := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
	n, err := base64.StdEncoding.Decode(dst, src)
	if err != nil {
		return nil, false
	}
	return dst[:n], true
}

// goSDKPart decodes one content part with go-sdk's decoding, reporting
// false where go-sdk refuses it.
func goSDKPart(v []byte) (mcp.Content, bool) {
	one := make([]byte, 0, len(v)+14)
	one = append(one, `{"content":[`...)
	one = append(one, v...)
	one = append(one, "]}"...)
	var res mcp.CallToolResult
	if json.Unmarshal(one, &res) != nil || len(res.Content) != 1 {
		return nil, false
	}
	return res.Content[0], true
}

// structuredOf is the structured content of the result raw as written,
// or decoded, go-sdk's decoding of it, encoded again where it cannot be
// read as written.
func structuredOf(raw json.RawMessage, decoded any) json.RawMessage {
	var written []byte
	if rawjson.Members(raw, func(k, v []byte) bool {
		if string(k) == "structuredContent" {
			written = v
		}
		return true
	}) && written != nil {
		return json.RawMessage(written)
	}
	data, _ := json.Marshal(decoded)
	return data
}
