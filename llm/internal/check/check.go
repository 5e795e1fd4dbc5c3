// Package check holds the check the vendor packages of llm make alike on the
// tools of a request, and the loop that encodes them.
package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/tool"
)

// emptySchema is the schema of a tool that declared none: both APIs want an
// object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// schema checks a tool definition and returns the input schema to send,
// naming the vendor in an error: the name must be set, and the schema must be
// valid JSON or empty, which stands for an object without properties.
func schema(vendor string, d tool.Definition) (json.RawMessage, error) {
	if d.Name == "" {
		return nil, errors.New(vendor + ": tool definition without a name")
	}
	if len(bytes.TrimSpace(d.InputSchema)) == 0 {
		return emptySchema, nil
	}
	if !json.Valid(d.InputSchema) {
		return nil, fmt.Errorf("%s: tool %q: input schema is not valid JSON", vendor, d.Name)
	}
	return d.InputSchema, nil
}

// Tools encodes each definition with encode, given the input schema to send
// (see schema); the first definition that fails its check fails them all.
func Tools[T any](vendor string, defs []tool.Definition, encode func(d tool.Definition, schema json.RawMessage) T) ([]T, error) {
	var out []T
	for _, d := range defs {
		s, err := schema(vendor, d)
		if err != nil {
			return nil, err
		}
		out = append(out, encode(d, s))
	}
	return out, nil
}
