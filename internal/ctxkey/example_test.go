package ctxkey_test

import (
	"context"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// requestID is the key of the request a context serves; unexported, it is
// read and written only through the package's own functions.
var requestID = ctxkey.New[string]("request id")

func Example() {
	ctx := context.Background()
	fmt.Printf("%q\n", requestID.Value(ctx))
	ctx = requestID.With(ctx, "r-42")
	fmt.Printf("%q\n", requestID.Value(ctx))
	other := ctxkey.New[string]("request id")
	fmt.Printf("%q\n", other.Value(ctx))
	// Output:
	// ""
	// "r-42"
	// ""
}

// progress says what its value is: a function told of a call's progress.
type progress func(done int)

// A value two packages pass by its type: With of a T, then Value of the
// same T; another type, even of the same underlying type, reads nothing.
func ExampleWith() {
	ctx := ctxkey.With(context.Background(), progress(func(done int) { fmt.Println("done:", done) }))
	if report := ctxkey.Value[progress](ctx); report != nil {
		report(3)
	}
	fmt.Println(ctxkey.Value[func(int)](ctx) == nil)
	// Output:
	// done: 3
	// true
}
