package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Without a model configured, the command says which variables to set and
// exits with status 1, instead of sending the prompt to api.openai.com
// without a key.
func TestNoModelConfigured(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "Add a note to buy milk")
	cmd.Env = append(os.Environ(), asMain+"=1", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; output:\n%s", err, out)
	}
	for _, want := range []string{"no model configured", "OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
