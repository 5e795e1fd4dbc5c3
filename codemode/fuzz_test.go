package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The names and schemas a server sends are hostile: whatever they are,
// every tool is reached at a path of plain identifiers, a path of its own,
// and the declarations the model reads keep their structure (no text of
// the server's closes a comment or a string early) and their bounds.
func FuzzDeclarations(f *testing.F) {
	f.Add("demo", "add_note", "delete", "Add a note.", `{"type":"object","properties":{"title":{"type":"string","description":"the title"}},"required":["title"]}`)
	f.Add("my-server", "do.thing", "do-thing", "ends */ here", `{"properties":{"x */ y":{"enum":["a\"b","\u202e"]}}}`)
	f.Add("", "__proto__", "constructor", "*\u200b/ evil(); /*", `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`)
	f.Add("日本", "1st", "", "", `{"anyOf":[{"type":"string"},{"type":["array","null"],"items":{"$ref":"#"}}]}`)
	f.Fuzz(func(t *testing.T, server, name1, name2, desc, schema string) {
		defs := []tool.Definition{
			{Name: "a_" + name1, Description: desc, InputSchema: json.RawMessage(schema), Origin: tool.Origin{Server: server, Tool: name1}},
			{Name: "b_" + name2, Description: desc, InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema), Origin: tool.Origin{Server: server, Tool: name2}},
			{Name: "c_" + name1, Description: desc, Origin: tool.Origin{Server: server + "-", Tool: name1}},
			{Name: name2 + name1, Description: desc, InputSchema: json.RawMessage(schema)},
		}
		rt, err := codemode.New(tool.Set{Definitions: defs, Handler: tool.HandlerFunc(echoName)}, codemode.Config{})
		if err != nil {
			t.Fatal(err)
		}
		decl := rt.Declarations("")
		if len(decl) > 4*40<<10 {
			t.Fatalf("declarations of %d bytes", len(decl))
		}
		if err := wellFormed(decl); err != nil {
			t.Fatalf("%v:\n%s", err, decl)
		}
		// Each tool answers at its own path, every part an identifier.
		out, err := rt.Run(context.Background(), `
			const got = [];
			for (const g of Object.keys(tools)) for (const f of Object.keys(tools[g])) got.push([g + "." + f, await tools[g][f]()]);
			return got;`)
		if err != nil {
			t.Fatal(err)
		}
		var got [][2]string
		if err := json.Unmarshal(out.Value, &got); err != nil {
			t.Fatal(err)
		}
		var paths, names []string
		for _, p := range got {
			for part := range strings.SplitSeq(p[0], ".") {
				if !identifier(part) {
					t.Fatalf("path %q: %q is no identifier", p[0], part)
				}
			}
			paths, names = append(paths, p[0]), append(names, p[1])
		}
		slices.Sort(names)
		want := []string{"a_" + name1, "b_" + name2, "c_" + name1, name2 + name1}
		for i, w := range want { // as JSON carries it back
			data, _ := json.Marshal(w)
			json.Unmarshal(data, &want[i])
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(names, want) {
			t.Fatalf("the paths %v reach %v; want every tool once: %v", paths, names, want)
		}
	})
}

func echoName(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
	return tool.Text(name), nil
}

func identifier(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// wellFormed reads decl as TypeScript's lexer would and reports server
// text found where only the renderer writes: outside a comment or a
// string (but identifiers), or ending one early. Every comment the
// renderer writes ends its line; every string is followed by what follows
// a key or a literal type.
func wellFormed(decl string) error {
	for i := 0; i < len(decl); {
		switch {
		case strings.HasPrefix(decl[i:], "/*"):
			end := strings.Index(decl[i+2:], "*/")
			if end < 0 {
				return fmt.Errorf("a comment at %d does not end", i)
			}
			i += 2 + end + 2
			if i >= len(decl) || decl[i] != '\n' {
				return fmt.Errorf("a comment ends mid-line, at %d", i)
			}
		case decl[i] == '"':
			j := i + 1
			for ; j < len(decl) && decl[j] != '"'; j++ {
				if decl[j] == '\\' {
					j++
				} else if decl[j] == '\n' {
					return fmt.Errorf("a string at %d holds a line break", i)
				}
			}
			if j >= len(decl) {
				return fmt.Errorf("a string at %d does not end", i)
			}
			i = j + 1
			if i >= len(decl) || !strings.ContainsRune("?:;,]>) |", rune(decl[i])) {
				return fmt.Errorf("a string ends before %q, at %d", decl[i:min(i+10, len(decl))], i)
			}
		default:
			if c := decl[i]; !(identifier(string(c)) || '0' <= c && c <= '9' || strings.ContainsRune(" \n{}()[]<>:;?|&,.-+", rune(c))) {
				return fmt.Errorf("%q outside a comment or a string, at %d", c, i)
			}
			i++
		}
	}
	return nil
}
