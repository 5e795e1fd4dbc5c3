package main_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// Proves that tools whose schemas no validation could finish on (mcpbridge
// died of a stack overflow calling them) cost one line each and never a
// crash: tools lists the good tool and says why each other is left out,
// call runs the good tool and refuses a left-out one in one line (status 1),
// and lint refuses each (status 1).
func TestUnboundedSchemas(t *testing.T) {
	srv := hostileServer(t, "schema-cycles")
	bad := []string{"out_cycle"}
	for name := range hostile.CyclicTools {
		bad = append(bad, name)
	}

	r := mcpbridge(t, "", "", nil, append([]string{"tools"}, srv...)...)
	expect(t, r, 0, "echo")
	for _, name := range bad {
		if n := strings.Count(r.err, `": tool "`+name+`": at /`); n != 1 {
			t.Errorf("tools: %d lines about %s\n%s", n, name, r.err)
		}
		if strings.Contains(r.out, name) {
			t.Errorf("tools lists %s", name)
		}
	}

	expect(t, mcpbridge(t, "", "", nil, append([]string{"call", "echo", `{"text":"still here"}`}, srv...)...), 0, "still here")
	for _, name := range []string{"all_of", "out_cycle"} {
		r := mcpbridge(t, "", "", nil, append([]string{"call", name, `{}`}, srv...)...)
		expect(t, r, 1, "mcpbridge call: left out: server ", `tool "`+name+`": at /`, "cycle")
		if lines := strings.Count(strings.TrimSpace(r.err), "\n"); lines != 1 { // the ready line, then the error
			t.Errorf("call %s: %d lines on stderr:\n%s", name, lines+1, r.err)
		}
	}

	r = mcpbridge(t, "", "", nil, append([]string{"lint", "--vendor", "anthropic"}, srv...)...)
	expect(t, r, 1, "7 refused")
	for _, name := range bad {
		if !strings.Contains(r.out, `tool "`+name+`" at /`) {
			t.Errorf("lint does not refuse %s:\n%s", name, r.out)
		}
	}
}
