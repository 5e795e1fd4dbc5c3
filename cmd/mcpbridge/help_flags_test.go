package main_test

import (
	"regexp"
	"strings"
	"testing"
)

// Every command's help lists its flags as the usage lines and the docs
// write them (--name VALUE, -x for a one-letter flag), names what each
// value is, lists only the flags that matter to the command with defaults
// that are true (one a flag), and says what the exit statuses mean; no example quotes a
// variable so that the shell would not expand it.
func TestHelpFlags(t *testing.T) {
	oneDash := regexp.MustCompile(`(?m)^  -[a-z][a-z-]+`)
	unnamed := regexp.MustCompile(`(?m)^  --?\S+ value$`)
	unexpanded := regexp.MustCompile(`'[^'\n]*\$[A-Z{]`)
	twoDefaults := regexp.MustCompile(`\(default[^\n]*\(default`)
	help := map[string]string{}
	for _, c := range []string{"tools", "call", "run", "read", "info", "lint", "chat", "web", "serve", "serve-demo"} {
		r := mcpbridge(t, "", "", nil, c, "--help")
		expect(t, r, 0, "Flags:\n  -")
		help[c] = r.out
		if m := oneDash.FindString(r.out); m != "" {
			t.Errorf("%s --help lists %q with one dash:\n%s", c, m, r.out)
		}
		if m := unnamed.FindString(r.out); m != "" {
			t.Errorf("%s --help does not name the value of %q:\n%s", c, m, r.out)
		}
		if m := unexpanded.FindString(r.out); m != "" {
			t.Errorf("%s --help quotes a variable in single quotes: %s", c, m)
		}
		if m := twoDefaults.FindString(r.out); m != "" {
			t.Errorf("%s --help states two defaults of one flag: %s", c, m)
		}
		if c != "serve-demo" && !strings.Contains(r.out, "Exit status:\n  0    ok\n") {
			t.Errorf("%s --help does not say the exit statuses:\n%s", c, r.out)
		}
	}
	for _, c := range []string{"read", "info", "serve-demo"} {
		if strings.Contains(help[c], "--vendor") {
			t.Errorf("%s --help lists --vendor, which does nothing for it", c)
		}
	}
	for c, want := range map[string]string{
		"tools": "  --vendor VENDOR\n        the VENDOR whose rules names and schemas follow: openai, anthropic or gemini (default: anthropic)\n",
		"lint":  "  --vendor VENDOR\n        check only VENDOR's rules: openai, anthropic or gemini (default: all three)\n",
		"chat":  "(default: the model's)\n",
		"info":  `--header "Authorization: Bearer $TOKEN"`,
		"call":  "  -v\n        log what the servers",
	} {
		if !strings.Contains(help[c], want) {
			t.Errorf("%s --help lacks %q:\n%s", c, want, help[c])
		}
	}
	if strings.Contains(help["lint"], "(default: anthropic)") {
		t.Errorf("lint --help says it checks anthropic by default:\n%s", help["lint"])
	}
}
