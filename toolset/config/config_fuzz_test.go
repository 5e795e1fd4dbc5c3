package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes: it must never panic, and what it
// accepts must validate, print and build options without panicking, the
// same way each time.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `{"mcpServers": null}`, `{"servers": {"a": 1}}`,
		`{"mcpServers": {"a": {"command": "${A", "args": ["$${x}", "${env:B:-}"], "timeout": 1e-12}}}`,
		`{"mcpServers": {"": {"url": "http://[::1", "headers": {"": "\r\n"}, "type": "SSE"}}}`,
		`{"mcpServers": {"a": {"comand": 1, "comand": 2, "allowedTools": [], "disabledTools": [null]}}}`,
	} {
		f.Add([]byte(s))
	}
	lookup := env(map[string]string{"A": "1", "B": ""})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Loader{LookupEnv: lookup}.Parse(data)
		if err != nil {
			return
		}
		again, err := Loader{LookupEnv: lookup}.Parse(data)
		if err != nil || !reflect.DeepEqual(c, again) {
			t.Fatalf("a second Parse differs: %v", err)
		}
		if err := c.Validate(); err != nil {
			_ = err.Error()
		}
		_ = c.String() + c.GoString()
		for _, s := range c.Servers {
			_ = s.ToolPrefix()
		}
	})
}
