package main_test

import "testing"

// Arguments that are not JSON are refused before any server starts, saying
// what is wrong and where, as a shell's quoting often breaks them; nothing
// on stdin is said to be nothing.
func TestCallArgumentsNotJSON(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"call", "add_note", `{"title":"x",body:"y"}`}, "",
			`mcpbridge call: the arguments are not valid JSON: invalid character 'b' looking for beginning of object key string, at character 14: {"title":"x",b` + "\n"},
		{[]string{"call", "add_note", `{"title":"x"`}, "",
			`mcpbridge call: the arguments are not valid JSON: unexpected end of JSON input, at the end: {"title":"x"` + "\n"},
		{[]string{"call", "add_note", `title=x`}, "",
			`mcpbridge call: the arguments are not valid JSON: invalid character 'i' in literal true (expecting 'r'), at character 2: ti` + "\n"},
		{[]string{"call", "add_note", `{"body":"` + longText + `",}`}, "",
			`, at character 80: …mistake is far into it, cut",}` + "\n"},
		{[]string{"call", "add_note", "-"}, "",
			"mcpbridge call: no arguments on stdin: give a JSON object, {} for none\n"},
		{[]string{"call", "add_note", "-"}, "{\n  \"title\": \"x\",\n}\n",
			"mcpbridge call: the arguments on stdin are not valid JSON: invalid character '}' looking for beginning of object key string, at line 3, character 1: }\n"},
	} {
		r := mcpbridge(t, t.TempDir(), c.stdin, nil, c.args...)
		expect(t, r, 2, c.want, "run mcpbridge call --help for usage")
		if r.out != "" {
			t.Errorf("a server ran: stdout %q", r.out)
		}
	}
}

const longText = "a body long enough that the place of the mistake is far into it, cut"
