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
