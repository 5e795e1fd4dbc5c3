package tool

import "encoding/json"

// A Definition is what a model is told about a tool: its name, what it does,
// and the JSON Schema of its arguments (and, optionally, of its structured
// result).
//
// Schemas are kept as raw JSON and passed on whole: a Definition never drops a
// keyword it does not understand.
type Definition struct {
	// Name is the name the model calls the tool by.
	Name string `json:"name"`
	// Title is an optional human-readable name, for display.
	Title string `json:"title,omitempty"`
	// Description tells the model what the tool does and when to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments object.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema, if set, is the JSON Schema of the structured result.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are hints about the tool's behaviour. They come from the
	// tool's author; a host must not trust them from an untrusted server for
	// anything but deciding to ask a user.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Meta is the tool's _meta object, as its source declared it (for an MCP
	// App, the "ui" entry with its resource URI).
	Meta map[string]any `json:"_meta,omitempty"`
	// Origin, for a tool an MCP server serves, names the server and the
	// server's own name for the tool; it is zero for a local tool. Gates use
	// it to judge a call under every name the tool goes by (package policy),
	// and it makes the tool's alias ([Origin.Alias]).
	Origin Origin `json:"-"`
	// Strict says that InputSchema meets OpenAI's Structured Outputs rules
	// (schema.Lower sets it), so the tool may be sent with "strict": true and
	// the model's arguments are then guaranteed to match it.
	Strict bool `json:"-"`
}

// Annotations are the behaviour hints of the MCP specification. The zero value
// makes no claim; DestructiveHint and OpenWorldHint are pointers because the
// specification's default for them, when absent, is true.
type Annotations struct {
	// Title is a human-readable title for the tool.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint claims the tool does not modify its environment.
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint claims the tool may perform destructive updates
	// (meaningful only when ReadOnlyHint is false). Nil means true.
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint claims that calling the tool again with the same
	// arguments has no further effect.
	IdempotentHint bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint claims the tool reaches beyond a closed domain (the web,
	// say). Nil means true.
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// Destructive reports whether the tool may destroy data, reading an absent
// DestructiveHint as the specification says (true) and a read-only tool as
// not destructive. A nil *Annotations makes no claim, so it is destructive.
func (a *Annotations) Destructive() bool {
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// ReadOnly reports whether the tool claims not to modify its environment.
func (a *Annotations) ReadOnly() bool { return a != nil && a.ReadOnlyHint }

// Idempotent reports whether calling the tool again is claimed to be safe:
// it is read-only or annotated idempotent.
func (a *Annotations) Idempotent() bool {
	return a != nil && (a.ReadOnlyHint || a.IdempotentHint)
}

// OpenWorld reports whether the tool may reach beyond a closed domain,
// reading an absent OpenWorldHint as true.
func (a *Annotations) OpenWorld() bool {
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
}
