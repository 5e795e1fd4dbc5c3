package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Lint lists every problem a tool would meet at vendor v: the name rule it
// breaks, if any, then every diagnostic of [Lower]. A tool with a fatal
// diagnostic cannot be sent to v as it is; one without can, perhaps with
// keywords dropped (and, for OpenAI, perhaps without strict mode).
func Lint(v Vendor, name string, schema json.RawMessage) []Diagnostic {
	var diags []Diagnostic
	if err := CheckName(v, name); err != nil {
		msg := err.Error()
		var ne *NameError
		if errors.As(err, &ne) {
			msg = ne.Rule
		}
		diags = append(diags, Diagnostic{Keyword: "name", Message: "tool name " + msg, Fatal: true})
	}
	low, err := Lower(v, schema)
	diags = append(diags, low.Diagnostics...)
	var le *LowerError
	if err != nil && (!errors.As(err, &le) || len(low.Diagnostics) == 0) {
		d := Diagnostic{Message: err.Error(), Fatal: true}
		if le != nil {
			d = Diagnostic{Pointer: le.Pointer, Keyword: le.Keyword, Message: le.Message, Fatal: true}
		}
		diags = append(diags, d)
	}
	return diags
}

// LintOutput lists the problems of a tool's output schema, which is not
// lowered but compiled to check results: none, or one fatal diagnostic
// saying why [Compile] refuses it, with the pointer of the problem when it
// is known (an [UnboundedError]'s). Every call of a tool whose output schema
// cannot be compiled fails once its server has run it, so a host should
// leave the tool out.
func LintOutput(schema json.RawMessage) []Diagnostic {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	_, err := Compile(schema)
	var ue *UnboundedError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return []Diagnostic{{Pointer: ue.Pointer, Keyword: ue.Keyword, Message: ue.Message, Fatal: true}}
	}
	return []Diagnostic{{Message: err.Error(), Fatal: true}}
}
