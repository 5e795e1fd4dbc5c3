package hostile_test

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// Proves that every mode is documented and that the well-behaved server
// answers a handshake, a listing and a call, counting what it read.
func TestModes(t *testing.T) {
	for name, doc := range hostile.Modes() {
		if doc == "" {
			t.Errorf("mode %q has no description", name)
		}
	}
	if _, err := hostile.New("no such mode"); err == nil || !strings.Contains(err.Error(), "there are") {
		t.Fatalf("unknown mode: %v", err)
	}
	s, err := hostile.New("")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := s.Serve(strings.NewReader(in), &out); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"echo"`) || !strings.Contains(lines[2], `"text":"hi"`) {
		t.Fatalf("answers:\n%s", out.String())
	}
	if s.Count("notifications/initialized") != 1 || s.Count("tools/call") != 1 {
		t.Fatalf("counts wrong")
	}
}
