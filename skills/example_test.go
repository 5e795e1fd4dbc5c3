package skills_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/skills"
)

// A host lists a server's skills, loads one when the model asks for it, and
// reads a file of it on demand. Here the server runs in process; a real one is
// mcptool.FromURL or mcptool.FromCommand.
func Example() {
	ctx := context.Background()
	p, stop, err := serve(ctx, pdfServer()) // a server publishing one skill
	if err != nil {
		log.Fatal(err)
	}
	defer stop()

	if !skills.Declared(p.ServerExtensions()) {
		log.Fatal("no skills on this server")
	}
	c := skills.New(p)
	list, err := c.List(ctx) // reads no file
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range list {
		fmt.Printf("%s: %s (%d files)\n", s.Name, s.Description, len(s.Files))
	}

	l, err := c.Load(ctx, "pdf-processing") // reads and verifies SKILL.md
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(l.Body())
	forms, err := l.ReadFile(ctx, "references/FORMS.md") // read and verified now
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(forms))
	// Output:
	// pdf-processing: Extract, fill, and assemble PDF documents (2 files)
	//
	// Skill body.
	// Supporting content.
}
