package schema

import (
	"encoding/json"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

// Lint lists every problem a tool would meet at vendor v: the name rule it
// breaks, if any, then every diagnostic of [Lower]. A tool with a fatal
// diagnostic cannot be sent to v as it is; one without can, perhaps with
// keywords dropped (and, for OpenAI, perhaps without strict mode).
func Lint(v Vendor, name string, schema json.RawMessage) []Diagnostic {
	return diagnostics(toolschema.Lint(toolschema.Vendor(v), name, schema))
}

// LintOutput lists the problems of a tool's output schema, which is not
// lowered but compiled to check results: none, or one fatal diagnostic
// saying why it cannot be used to check results (not JSON, a remote
// reference, or a schema no validation could finish on), with the pointer
// of the problem when it is known. Every call of a tool whose output schema
// cannot be compiled fails once its server has run it, so a host should
// leave the tool out.
func LintOutput(schema json.RawMessage) []Diagnostic {
	return diagnostics(toolschema.LintOutput(schema))
}
