// Package ctxkey is the one way mcpbridge keeps a value in a context: a
// [Key] of the value's type, made once by [New], whose With stores a value
// and whose Value reads it back. The key type, the context.WithValue and the
// checked type assertion are written here, not again beside every value.
//
// Each package keeps its own functions in front of a key (tool.WithProgress,
// say): they say what the value is for and who reads it; the key is how it
// travels. A value one package stores and another reads, where the two
// cannot share a key variable (the key's package would have to import the
// value's type's, which imports it), travels by its type instead ([With],
// [Value]).
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

// typed is the key of the one value of type T that [With] stores.
type typed[T any] struct{}

// With returns a copy of ctx carrying v as its value of type T, which
// [Value] of the same T reads back: a key made of T alone, for a value
// whose storer and reader cannot share a [Key] (package tool stores a
// call's progress function and elicitor, and mcptool reads them). T should
// be a type that says what the value is, used for nothing else.
func With[T any](ctx context.Context, v T) context.Context {
	return context.WithValue(ctx, typed[T]{}, v)
}

// Value returns the value of type T that ctx carries by [With], or the zero
// T if it carries none.
func Value[T any](ctx context.Context) T {
	v, _ := ctx.Value(typed[T]{}).(T)
	return v
}
