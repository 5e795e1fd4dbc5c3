package sdkfix

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Elicitation forms, as the server wrote them.
//
// go-sdk decodes an elicitation's requestedSchema (ElicitParams, whether it
// comes as an elicitation/create request or inside an input_required
// result) into a map, which loses the order of its properties; a host asks
// for the fields in the order the server declared them. The connection
// shows Schemas the forms it receives, as it shows it the listings, and
// [Schemas.Form] gives a decoded one back as written.

// keptForms is how many of the latest forms Schemas keeps: enough for the
// elicitations of the calls in flight, which a host answers soon after.
const keptForms = 16

var requestedSchemaKey = []byte(`"requestedSchema"`)

// forms notes the requested schemas in a raw JSON-RPC message, a request
// or a result; the check for the key keeps every other message cheap.
func (k *Schemas) forms(data []byte) {
	if k == nil || !bytes.Contains(data, requestedSchemaKey) {
		return
	}
	found := requestedSchemas(data)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.recentForms = append(k.recentForms, found...)
	if n := len(k.recentForms); n > keptForms {
		k.recentForms = slices.Clone(k.recentForms[n-keptForms:])
	}
}

// Form returns the requested schema v, go-sdk's decoding of one, as the
// server wrote it (compacted) if a recent message held it; otherwise v
// encoded.
func (k *Schemas) Form(v any) json.RawMessage {
	decoded, err := json.Marshal(v)
	if err != nil || k == nil {
		return decoded
	}
	k.mu.Lock()
	recent := slices.Clone(k.recentForms)
	k.mu.Unlock()
	for _, raw := range slices.Backward(recent) {
		var compact bytes.Buffer
		if json.Compact(&compact, raw) == nil && sameJSON(raw, decoded) {
			return compact.Bytes()
		}
	}
	return decoded
}

// requestedSchemas returns the raw value of every member named
// requestedSchema in data, at any depth.
func requestedSchemas(data []byte) []json.RawMessage {
	var found []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	// What each open object or array expects: 'k' an object's key, 'v' its
	// value, 'a' an array's element.
	var stack []byte
	ended := func() { // a value ended: its object expects a key again
		if n := len(stack); n > 0 && stack[n-1] == 'v' {
			stack[n-1] = 'k'
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return found
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				stack = append(stack, 'k')
			case '[':
				stack = append(stack, 'a')
			default:
				stack = stack[:len(stack)-1]
				ended()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] == 'k' {
				if tok != "requestedSchema" {
					stack[n-1] = 'v'
					continue
				}
				var raw json.RawMessage
				if dec.Decode(&raw) != nil {
					return found
				}
				found = append(found, raw)
				continue
			}
			ended()
		default:
			ended()
		}
	}
}
