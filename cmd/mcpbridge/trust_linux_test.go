package main_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Proves that a ./mcp.json found in the working directory (a cloned
// repository's, say) runs nothing until the user says yes on a terminal:
// without a terminal it is refused, naming what it would run; the answer
// is kept for the file's content, so a changed file is asked about again;
// and --config uses it without asking.
func TestLocalConfigTrust(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	marker := dir + "/ran"
	// The "server" would leave a mark if it ran.
	write := func(extra string) {
		writeConfig(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"repo": {"command": "sh", "args": ["-c", "touch %s; exec %s serve-demo"]%s}}}`, marker, bin, extra))
	}
	write("")
	env := []string{"MCPBRIDGE_CONFIG_DIR=" + home}
	r := mcpbridge(t, dir, "", env, "tools")
	expect(t, r, 2, "./mcp.json was found but not used", "repo (the command sh)", "--config mcp.json")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted config ran its command")
	}

	// On a terminal the user is asked; "n" refuses, "y" runs and is kept.
	r = askOnTerminal(t, dir, home, "n\n", "tools")
	expect(t, r, 2, "not used")
	r = askOnTerminal(t, dir, home, "y\n", "tools")
	expect(t, r, 0, "Run the servers of this file?", "repo_add_note")
	expect(t, mcpbridge(t, dir, "", env, "tools"), 0, "repo_add_note")

	// The content changed: asked again.
	write(`, "env": {"X": "1"}`)
	expect(t, mcpbridge(t, dir, "", env, "tools"), 2, "not used")
	expect(t, mcpbridge(t, dir, "", env, "tools", "--config", "mcp.json"), 0, "repo_add_note")
}

// askOnTerminal runs mcpbridge in dir with stdin and stderr on a terminal
// on which the user types answer; stdout is a pipe.
func askOnTerminal(t *testing.T, dir, home, answer string, args ...string) result {
	t.Helper()
	term, screen := openPTY(t)
	defer screen.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MCPBRIDGE_CONFIG_DIR="+home)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, &out, term
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	if _, err := io.WriteString(screen, answer); err != nil {
		t.Fatal(err)
	}
	var shown bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&shown, screen)
	}()
	err := cmd.Wait()
	<-read
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return result{out.String(), strings.ReplaceAll(shown.String(), "\r\n", "\n"), code}
}
