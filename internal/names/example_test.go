package names_test

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A catalog is indexed once and searched as often as a model asks; the
// words of a query match the words of names written in any case style.
func ExampleIndex() {
	x := names.NewIndex([]tool.Definition{
		{Name: "listFiles", Description: "List the files of a directory."},
		{Name: "read_file", Description: "Read a file."},
		{Name: "send-message", Description: "Send a chat message."},
	})
	hits, matched := x.Search("list the files in a folder", 12, nil)
	for _, d := range hits {
		fmt.Println(d.Name)
	}
	fmt.Println(matched, "matched")
	// Output:
	// listFiles
	// read_file
	// 2 matched
}
