package main_test

import "testing"

// A mistake in a flag is said as the help writes flags (--name, -x for a
// one-letter flag), and a misspelt flag names the one meant: a user who
// reads "-jsn" in an error and "--json" in the help wonders which is wrong.
func TestFlagErrorsSpeakAsTheHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--bogus"}, "mcpbridge tools: unknown flag --bogus\nrun mcpbridge tools --help for usage\n"},
		{[]string{"tools", "--vendr", "openai"}, "mcpbridge tools: unknown flag --vendr; did you mean --vendor?\nrun mcpbridge tools --help for usage\n"},
		{[]string{"call", "--Json", "note_stats"}, "mcpbridge call: unknown flag --Json; did you mean --json?\n"},
		{[]string{"chat", "--modle", "x"}, "mcpbridge chat: unknown flag --modle; did you mean --model?\n"},
		{[]string{"tools", "--vendor", "opnai"}, `mcpbridge tools: invalid value "opnai" for --vendor: schema: unknown vendor "opnai" (want openai, anthropic or gemini)` + "\n"},
		{[]string{"tools", "--url"}, "mcpbridge tools: flag --url needs a value\n"},
		{[]string{"chat", "-p"}, "mcpbridge chat: flag -p needs a value\n"},
		{[]string{"tools", "--json=maybe"}, `mcpbridge tools: invalid boolean value "maybe" for --json: parse error` + "\n"},
	} {
		r := mcpbridge(t, "", "", nil, c.args...)
		expect(t, r, 2, c.want)
	}
}
