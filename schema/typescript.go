package schema

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

// Declaration renders a tool as a TypeScript method, for a model that
// writes code against the tool (package codemode) rather than calling it:
//
//	/** description */
//	name(args: <input schema>): Promise<<output schema>>;
//
// (args?: when the schema requires no argument)
//
// each line after the first at indent. The description is the method's doc
// comment; a tool without an output schema resolves to any.
//
// A schema is read as the vendor lowering reads it: local references are
// inlined (a recursive one becomes any, as a remote one does, since
// mcpbridge never fetches a schema), type arrays and anyOf or oneOf become
// unions, allOf an intersection, const and enum literal types, OpenAPI's
// nullable a union with null; a property's description becomes its doc
// comment, and what TypeScript cannot say (format, default, bounds,
// pattern) is added to it in words, as lowering for Gemini adds the format
// to the description. Properties keep the schema's order.
//
// Whatever the tool's text holds, the rendering is bounded (a part past
// the bounds is any, which loosens what the model is told and nothing else:
// the arguments are still checked against the schema) and it is
// TypeScript whose structure that text cannot change: descriptions are
// cleaned of what a reader cannot see and cannot close their comment,
// names and literals are quoted when they are not plain. A schema no
// validation could finish on is any, with a sentence saying why in the doc
// comment.
func Declaration(name, description string, input, output json.RawMessage, indent string) string {
	return toolschema.Declaration(name, description, input, output, indent)
}
