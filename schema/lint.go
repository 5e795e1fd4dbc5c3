package schema

import (
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
