package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// asMain, set in a child's environment, makes this test binary run the
// command itself, so that a test sees what it prints and its exit status.
const asMain = "MCPBRIDGE_HELLO_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) != "" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// The README's program is this one, byte for byte, so that what a reader
// copies out of the README is what this package's test runs.
func TestTheREADMEShowsThisProgram(t *testing.T) {
	program, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(program)+"```\n") {
		t.Error("README.md does not show examples/hello/main.go whole in a go block: copy it there")
	}
}

// The program prints what the README says it prints, and exits 0.
func TestHello(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), asMain+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, shown, _ := strings.Cut(string(readme), "It prints:\n\n```\n")
	shown, _, _ = strings.Cut(shown, "```\n")
	if shown == "" {
		t.Fatal("README.md shows no output after \"It prints:\"")
	}
	date := regexp.MustCompile(`^  \d{4}-\d\d-\d\d$`)
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(shown, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("the program prints %d lines, the README shows %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		// The date is the day the program runs; the README shows one day.
		if got[i] != want[i] && !(date.MatchString(got[i]) && date.MatchString(want[i])) {
			t.Errorf("line %d: the program prints %q, the README shows %q", i+1, got[i], want[i])
		}
	}
}
