package toolschema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/toolschema"
)

func TestDeclaration(t *testing.T) {
	cases := []struct {
		name, in, out, want string
	}{{
		name: "properties in order, required, descriptions, bounds",
		in: `{"type":"object","properties":{"title":{"type":"string","description":"short title","minLength":1},
			"tags":{"type":"array","items":{"type":"string"}},"n":{"type":"integer","minimum":1,"default":5}},"required":["title"]}`,
		want: `/** Add a note. */
add_note(args: {
  /** short title. Minimum length: 1. */
  title: string;
  tags?: string[];
  /** Default: 5. Minimum: 1. */
  n?: number;
}): Promise<any>;
`,
	}, {
		name: "references inlined, a recursive one any",
		in: `{"type":"object","$defs":{"node":{"type":"object","description":"a node","properties":{"next":{"$ref":"#/$defs/node"}}}},
			"properties":{"head":{"$ref":"#/$defs/node"}}}`,
		want: `/** Add a note. */
add_note(args?: {
  /** a node */
  head?: {
    /** a node */
    next?: any;
  };
}): Promise<any>;
`,
	}, {
		name: "unions, literals, nullable, tuples, maps",
		in: `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"enum":["x","y",1]},"c":{"const":"k"},
			"d":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":["number","string"]}}]},
			"e":{"type":"number","nullable":true},"f":{"prefixItems":[{"type":"string"},{"type":"boolean"}]},
			"g":{"type":"object","additionalProperties":{"type":"integer"}},"h":{"type":"object"},"i":{"allOf":[{"type":"object","properties":{"p":{"type":"string"}}},{"required":["p"]}]}}}`,
		out: `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`,
		want: `/** Add a note. */
add_note(args?: {
  a?: string | null;
  b?: "x" | "y" | 1;
  c?: "k";
  d?: string | (number | string)[];
  e?: number | null;
  f?: [string, boolean];
  g?: Record<string, number>;
  h?: Record<string, any>;
  i?: {
    p?: string;
  };
}): Promise<{
  count: number;
}>;
`,
	}, {
		name: "a hostile text stays inside its comment and its quotes",
		in:   `{"type":"object","properties":{"x */ evil(): void; /*":{"type":"string","description":"ends *\u200b/ here\nsecond line"},"q":{"enum":["a\"b\u202e"]}}}`,
		want: `/** Add a note. */
add_note(args?: {
  /**
   * ends *\/ here
   * second line
   */
  "x */ evil(): void; /*"?: string;
  q?: "a\"b\u202e";
}): Promise<any>;
`,
	}, {
		name: "an unbounded schema is any, with why",
		in:   `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		want: "/**\n * Add a note.\n * (Its arguments' schema cannot be shown: ",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := toolschema.Declaration("add_note", "Add a note.", json.RawMessage(c.in), json.RawMessage(c.out), "")
			if !strings.HasPrefix(got, c.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// A huge or deep schema renders within bounds.
func TestDeclarationBounded(t *testing.T) {
	deep := strings.Repeat(`{"type":"array","items":`, 500) + `{"type":"string"}` + strings.Repeat("}", 500)
	var wide strings.Builder
	wide.WriteString(`{"type":"object","properties":{`)
	for i := range 5000 {
		if i > 0 {
			wide.WriteByte(',')
		}
		wide.WriteString(`"p` + strings.Repeat("x", 20) + string(rune('a'+i%26)) + `":{"type":"string","description":"` + strings.Repeat("d", 200) + `"}`)
	}
	wide.WriteString(`}}`)
	for _, s := range []string{deep, wide.String()} {
		got := toolschema.Declaration("t", strings.Repeat("long ", 10000), json.RawMessage(s), nil, "  ")
		if len(got) > 40<<10 {
			t.Fatalf("declaration of %d bytes", len(got))
		}
		if !strings.Contains(got, "any") {
			t.Fatalf("nothing was cut to any:\n%.500s", got)
		}
	}
}
