// Package ctxkey is the one way mcpbridge keeps a value in a context: a
// [Key] of the value's type, made once by [New], whose With stores a value
// and whose Value reads it back. The key type, the context.WithValue and the
// checked type assertion are written here, not again beside every value.
//
// Each package keeps its own functions in front of a key (tool.WithProgress
// and tool.ProgressFunc, say): they say what the value is for and who reads
// it; the key is how it travels.
package ctxkey

import "context"

// A Key is the key of one value a context may carry, of type T. Keys are
// told apart by their address, as net/http's context keys are: a key made by
// [New] equals no other, whatever its name or T, so two packages, or two
// values of one type, never read each other's value.
type Key[T any] struct{ name string }

// New returns a new key for a value of type T; name says what the value is,
// for printing only (a context prints its keys by it).
func New[T any](name string) *Key[T] { return &Key[T]{name} }

// With returns a copy of ctx carrying v under k.
func (k *Key[T]) With(ctx context.Context, v T) context.Context {
	return context.WithValue(ctx, k, v)
}

// Value returns the value ctx carries under k, or the zero T if it carries
// none.
func (k *Key[T]) Value(ctx context.Context) T {
	v, _ := ctx.Value(k).(T)
	return v
}

// String returns the key's name.
func (k *Key[T]) String() string { return k.name }
