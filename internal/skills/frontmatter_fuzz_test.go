package skills

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A SKILL.md comes from a server, which may be hostile: whatever it holds,
// reading its frontmatter ends with a value or an error, never a panic, and
// a value is a JSON object that encodes as one.
func FuzzFrontmatter(f *testing.F) {
	for _, seed := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"\uFEFF---\r\nname: a\r\n---  \r\n",
		"---\na: &a [x, x]\nb: [*a, *a]\n---\n",
		"---\na: &a [*a]\n---\n",
		"---\n{a: [1, 2.5, -0x10, .inf, ~, 2001-12-14t21:59:43.10-05:00]}\n---\n",
		"---\n? [a]\n: b\n---\n",
		"---\na: !!binary aGk=\nb: !custom x\n---\n",
		"---\n- a\n---\n",
		"---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		front, body, ok := splitFrontmatter(doc)
		if !ok {
			return
		}
		if !bytes.Contains(doc, front) || !bytes.HasSuffix(doc, body) {
			t.Fatalf("split %q into %q and %q, which are not its parts", doc, front, body)
		}
		m, err := parseFrontmatter(front)
		if err != nil {
			return
		}
		data, err := json.Marshal(m)
		if err != nil || !bytes.HasPrefix(data, []byte("{")) {
			t.Fatalf("frontmatter %q parsed to %v, which encodes as %s, %v", front, m, data, err)
		}
	})
}
