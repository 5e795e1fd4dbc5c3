// Package handle keeps the engine of a public type out of its API. A public
// type that wraps an engine of this module (mcptool.Provider wraps the
// client core's provider) embeds an [Of] of the engine's type under an
// unexported name: go doc shows no field, a user reaches nothing, and the
// module's own packages reach the engine with [Core] and wrap one with
// [Wrap], ordinary calls that name the engine's type.
//
// It exists because Go gives no other way: a conversion between a public
// type and its engine needs them to share an underlying type, which go doc
// then prints, and a field of the engine's type is unexported to every other
// package of the module.
package handle

// Of is embedded by a public type that wraps a *T. Its methods are
// unexported, so a user of the public type can call none of them.
type Of[T any] struct{ core *T }

func (h *Of[T]) handleCore() *T     { return h.core }
func (h *Of[T]) setHandleCore(c *T) { h.core = c }

// holder is a pointer to a public type that embeds Of[T].
type holder[T any] interface {
	handleCore() *T
	setHandleCore(*T)
}

// Core returns the engine h wraps; nil for a nil h.
func Core[T any, H interface {
	*P
	holder[T]
}, P any](h H) *T {
	if h == nil {
		return nil
	}
	return h.handleCore()
}

// Wrap returns a new public P wrapping c; nil for a nil c.
func Wrap[P any, T any, H interface {
	*P
	holder[T]
}](c *T) H {
	if c == nil {
		return nil
	}
	h := H(new(P))
	h.setHandleCore(c)
	return h
}
