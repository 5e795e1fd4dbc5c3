package plural_test

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/plural"
)

func ExampleCount() {
	fmt.Println(plural.Count(1, "tool", "tools"))
	fmt.Println(plural.Count(0, "tool", "tools"))
	fmt.Println(plural.Count(3, "property", "properties"))
	fmt.Println(plural.Count(1.0, "character", "characters"))
	// Output:
	// 1 tool
	// 0 tools
	// 3 properties
	// 1 character
}

func ExampleNoun() {
	n := 2
	fmt.Printf("%d %s did not start\n", n, plural.Noun(n, "server", "servers"))
	// Output:
	// 2 servers did not start
}
