package main_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
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
	expect(t, r, 2, "./mcp.json was found but not used", "repo: sh -c ", "--config mcp.json")
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
	var out bytes.Buffer
	shown, code := onPTY(t, dir, []string{"MCPBRIDGE_CONFIG_DIR=" + home}, answer, func(cmd *exec.Cmd, term *os.File) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = term, &out, term
	}, args...)
	return result{out.String(), shown, code}
}

// Proves that trust in a ./mcp.json is bound to the file's path as well as
// its content: the same bytes in another directory (a cloned repository
// that ships the file with a ./server.sh of its own) are asked about
// again, and refused without a terminal. The question shows each server's
// whole command line, its arguments and working directory included.
func TestLocalConfigTrustIsPerPath(t *testing.T) {
	home := t.TempDir()
	mine, theirs := t.TempDir(), t.TempDir()
	config := `{"mcpServers": {"dev": {"command": "sh", "args": ["./server.sh", "--port", "7"]}}}`
	for _, dir := range []string{mine, theirs} {
		writeConfig(t, dir, "mcp.json", config)
		writeConfig(t, dir, "server.sh", "exec "+bin+" serve-demo\n")
	}
	r := askOnTerminal(t, mine, home, "y\n", "tools")
	expect(t, r, 0, "Run the servers of this file?", "dev_add_note", "sh ./server.sh --port 7", "in "+mine)
	env := []string{"MCPBRIDGE_CONFIG_DIR=" + home}
	expect(t, mcpbridge(t, mine, "", env, "tools"), 0, "dev_add_note")
	expect(t, mcpbridge(t, theirs, "", env, "tools"), 2, "./mcp.json was found but not used", "sh ./server.sh --port 7")
}

// Proves that the question about a ./mcp.json says what each server would
// be given from the user's environment and from the file, by name, never
// a value: a server reached by URL once got "Bearer ..." of $GITHUB_TOKEN
// in a header after a question that showed its URL alone.
func TestLocalConfigTrustNamesWhatEachServerGets(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeConfig(t, dir, "mcp.json", `{"mcpServers": {
		"gh": {"url": "https://mcp.example.com/mcp?key=${API_KEY}", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Team": "team-secret-0123456789"}},
		"local": {"command": "node", "args": ["server.js"], "env": {"TOKEN": "${env:GITHUB_TOKEN}", "DEBUG": "1"}}}}`)
	env := []string{"MCPBRIDGE_CONFIG_DIR=" + home, "GITHUB_TOKEN=ghp_thetokenvalue0123456789", "API_KEY=thekeyvalue0123456789"}
	gets := []string{
		"gh: the URL https://mcp.example.com/… (with $API_KEY), sending the headers Authorization (from $GITHUB_TOKEN), X-Team (a value written in the file)",
		"local: node server.js, in " + dir + ", setting DEBUG (a value written in the file), TOKEN (from $GITHUB_TOKEN)",
	}
	r := mcpbridge(t, dir, "", env, "tools")
	expect(t, r, 2, append([]string{"./mcp.json was found but not used"}, gets...)...)
	shown, code := onPTY(t, dir, env, "n\n", func(cmd *exec.Cmd, term *os.File) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = term, io.Discard, term
	}, "tools")
	expect(t, result{"", shown, code}, 2, append([]string{"Run the servers of this file?"}, gets...)...)
	for _, secret := range []string{"ghp_thetokenvalue", "thekeyvalue", "team-secret"} {
		if strings.Contains(r.err+shown, secret) {
			t.Errorf("a value was shown, %s:\n%s\n%s", secret, r.err, shown)
		}
	}
}
