package hostile

import (
	"fmt"
	"os"
)

// The environment of a hostile server process.
const (
	// ChildEnv names the mode a re-executed test binary serves; see
	// [ServeIfChild].
	ChildEnv = "MCPBRIDGE_HOSTILE"
	// PIDFileEnv, if set, names a file the server writes its pid to.
	PIDFileEnv = "MCPBRIDGE_HOSTILE_PIDFILE"
	// MarkerEnv names the file whose absence makes the flaky tool's first
	// call kill the server.
	MarkerEnv = "MCPBRIDGE_HOSTILE_MARKER"
)

// ServeIfChild makes the current process a hostile server over stdio when
// [ChildEnv] is set (to a mode's name, or "-" for the well-behaved one), and
// exits when stdin ends: 0, or 1 with the error on stderr. Otherwise it
// returns at once. Call it first thing in TestMain.
//
// A stdio server gets a minimal environment, so a test passes the mode
// with the provider's WithEnv (or the command's --env).
func ServeIfChild() {
	name, ok := os.LookupEnv(ChildEnv)
	if !ok {
		return
	}
	if name == "-" {
		name = ""
	}
	os.Exit(serveChild(name))
}

func serveChild(name string) int {
	s, err := New(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if f := os.Getenv(PIDFileEnv); f != "" {
		os.WriteFile(f, []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	if s.mode.stderr != "" {
		fmt.Fprintln(os.Stderr, s.mode.stderr)
	}
	if err := s.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		return 1
	}
	return 0
}
