package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
)

// ChatSummary is what the help says chat does, in mcpbridge's list of
// commands and in chat's own help.
const ChatSummary = "Talk to the servers through a model; its tool calls are shown in its order, each result with its call."

// chatCmd is chat as mcpbridge lists it. The program mcpbridge-chat runs
// it: the model SDKs are built into that program only.
var chatCmd = &Command{Name: "chat", Summary: ChatSummary, program: "mcpbridge-chat"}

// WebSummary is what the help says web does.
const WebSummary = "Chat in the browser, with the tools' MCP Apps rendered; /app shows one tool's app, no model needed."

// webCmd is web as mcpbridge lists it: mcpbridge-chat runs it (it needs
// the model), given its name first.
var webCmd = &Command{Name: "web", Summary: WebSummary, inChat: func([]string) bool { return true }}

// RunSummary is what the help says run does.
const RunSummary = "Run JavaScript against the servers' tools (code mode) and print what it returns."

// runCmd is run as mcpbridge lists it: mcpbridge-chat runs it, given its
// name first, for the interpreter it needs would make mcpbridge a third
// slower to build (tools --code declares the tools without one).
var runCmd = &Command{Name: "run", Summary: RunSummary, inChat: func([]string) bool { return true }}

// runProgram runs the program of c with args on s, and returns its exit
// status: 128+n if signal n ended it. On the process's own streams the
// program takes the process's place (exec), so that a terminal's Ctrl-C,
// sent to the foreground process group, reaches one process once: chat
// takes a first Ctrl-C for its turn and a second for itself, which a
// parent passing on its own copy would make one. Where the system cannot
// exec (Windows), or on other streams, the program runs as a child in the
// same process group: a stop signal sent to mcpbridge alone is passed on,
// and mcpbridge itself only waits. When the program is missing, one line
// says how to get it: status 2.
func runProgram(c *Command, args []string, s *Streams) int {
	path, err := findProgram(c.program)
	if err != nil {
		fmt.Fprintf(s.Err, "mcpbridge %s: %s, the program that runs %s, is neither next to mcpbridge nor on PATH: in a clone of mcpbridge, go install ./cmd/mcpbridge ./cmd/%s installs both, or go run ./cmd/%s runs it with the same arguments\n",
			c.Name, c.program, c.Name, c.program, c.program)
		return exitUsage
	}
	if s.In == os.Stdin && s.Out == os.Stdout && s.Err == os.Stderr {
		// It returns only if it failed, and the child below is run instead.
		syscall.Exec(path, append([]string{path}, args...), os.Environ())
	}
	sigs := make(chan os.Signal, len(stopSignals))
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.In, s.Out, s.Err
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(s.Err, "mcpbridge %s: starting %s: %v\n", c.Name, c.program, err)
		return exitUsage
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			cmd.Process.Signal(sig)
		case err := <-waited:
			return programStatus(c, err, s)
		}
	}
}

// programStatus is the exit status of a program that Wait answered err.
func programStatus(c *Command, err error, s *Streams) int {
	var exit *exec.ExitError
	switch {
	case err == nil:
		return exitOK
	case !errors.As(err, &exit):
		fmt.Fprintf(s.Err, "mcpbridge %s: running %s: %v\n", c.Name, c.program, err)
		return exitFailed
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return exit.ExitCode()
}

// findProgram returns the path of the executable name next to the running
// one (as go install puts them), else on PATH.
func findProgram(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		next := filepath.Join(filepath.Dir(self), name+filepath.Ext(self))
		if info, err := os.Stat(next); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return next, nil
		}
	}
	return exec.LookPath(name)
}
