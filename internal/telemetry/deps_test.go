package telemetry_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The library's packages use the OpenTelemetry API alone: a host that
// installs no SDK builds none in. The SDK, the exporters and the OTLP
// protocol are for the command, tests and examples.
func TestLibraryImportsNoSDK(t *testing.T) {
	const mod = "github.com/mcpbridge/mcpbridge/"
	args := []string{"list", "-deps"}
	for _, p := range []string{"mcptool/...", "toolset", "agent", "internal/skills", "policy", "tool", "schema", "llm/..."} {
		args = append(args, mod+p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	api := false
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters", "go.opentelemetry.io/proto"} {
			if dep == banned || strings.HasPrefix(dep, banned+"/") {
				t.Errorf("a library package depends on %s", dep)
			}
		}
		api = api || dep == "go.opentelemetry.io/otel/trace"
	}
	if !api {
		t.Fatal("no library package uses the OpenTelemetry API: is the list of packages right?")
	}
}
