package cli

import (
	"encoding/json"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/gateway"
)

// Each bound is read from its flag or its key of "limits", the flag
// winning; a value is a number, a duration or a size as the flag takes it,
// and one that is none names the file and the key.
func TestLimitsFromFlagsAndConfig(t *testing.T) {
	read := func(args []string, config string) (gateway.Limits, error) {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var l gateway.Limits
		flags := limitFlags(fs, &l)
		if err := fs.Parse(args); err != nil {
			return l, err
		}
		var c *limitsConfig
		if config != "" {
			c = new(limitsConfig)
			if err := json.Unmarshal([]byte(config), c); err != nil {
				t.Fatal(err)
			}
		}
		return l, applyLimits(fs, flags, c, "mcp.json")
	}
	l, err := read([]string{"--max-calls", "7", "--max-request-bytes", "2MiB"},
		`{"calls": 9, "callsPerClient": 3, "sessionIdle": 90, "requestBytesPerClient": "512KiB", "requestBytes": 1, "bodyRead": "-1s"}`)
	if err != nil {
		t.Fatal(err)
	}
	if l.Calls != 7 || l.CallsPerClient != 3 || l.SessionIdle != 90*time.Second || l.RequestBytesPerClient != 512<<10 ||
		l.RequestBytes != 2<<20 || l.BodyRead != -time.Second || l.Sessions != 1000 {
		t.Errorf("limits %+v", l)
	}
	if l.Resolved().BodyRead != 0 {
		t.Errorf("a negative BodyRead resolved to %v, want 0 (no bound)", l.Resolved().BodyRead)
	}
	for config, want := range map[string]string{
		`{"sessionIdle": "soon"}`:  `mcp.json: "gateway": "limits": "sessionIdle": want a duration`,
		`{"requestBytes": "4 TB"}`: `"requestBytes": want a size`,
		`{"calls": 1.5}`:           `"calls": want a whole number`,
		`{"connections": "many"}`:  `"connections": want a whole number`,
	} {
		if _, err := read(nil, config); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", config, err, want)
		}
	}
}
