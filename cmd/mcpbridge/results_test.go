package main_test

import (
	"strings"
	"testing"
)

// What a tool result can do to the host: through the built command, with
// a hostile server answering every call.

// A corrupt part costs that part only: the rest is printed, the part is a
// note, and the call succeeds. So with --raw, which prints the result.
func TestCallKeepsTheRestOfACorruptResult(t *testing.T) {
	note := "[image content (image/png) not shown to the model]"
	r := mcpbridge(t, "", "", nil, append([]string{"call", "echo"}, hostileServer(t, "corrupt-image")...)...)
	expect(t, r, 0, `["kept","`+note+`"]`)
	r = mcpbridge(t, "", "", nil, append([]string{"call", "echo", "--raw"}, hostileServer(t, "corrupt-image")...)...)
	expect(t, r, 0, `"text": "kept"`, `"text": "`+note+`"`)
}

// A result the protocol does not allow is a protocol error: exit status 3
// and one line naming server, tool and fault.
func TestCallRefusesANullResult(t *testing.T) {
	for mode, fault := range map[string]string{
		"null-result":  "the result is null",
		"empty-result": "the result has no content",
	} {
		r := mcpbridge(t, "", "", nil, append([]string{"call", "echo"}, hostileServer(t, mode)...)...)
		expect(t, r, 3)
		// After the status line that says the server is ready.
		lines := strings.Split(strings.TrimSpace(r.err), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "mcpbridge call: ") || !strings.HasSuffix(last, `tools/call "echo": `+fault) ||
			strings.Count(r.err, "mcpbridge call:") != 1 || r.out != "" {
			t.Errorf("%s: want the error in one line; stdout:\n%s\nstderr:\n%s", mode, r.out, r.err)
		}
	}
}
