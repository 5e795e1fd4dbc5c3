package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the terminal's side (what a program
// writes to) and the side that reads what it shows.
func openPTY(t *testing.T) (term, screen *os.File) {
	t.Helper()
	screen, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, screen.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlocking the pseudo-terminal: %v", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, screen.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("naming the pseudo-terminal: %v", e)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	return term, screen
}

// onPTY runs mcpbridge in dir, with env added, on a new pseudo-terminal:
// attach puts the terminal in the place of some of its streams, and input
// is typed on it. It returns what the terminal showed, "\r\n" read as
// "\n", and the exit status.
func onPTY(t *testing.T, dir string, env []string, input string, attach func(cmd *exec.Cmd, term *os.File), args ...string) (shown string, code int) {
	t.Helper()
	term, screen := openPTY(t)
	defer screen.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...), env...)
	attach(cmd, term)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	if _, err := io.WriteString(screen, input); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		io.Copy(&out, screen) // ends with EIO once no process holds the terminal
	}()
	err := cmd.Wait()
	<-read
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), code
}

// onTerminal runs mcpbridge with its stdout on a terminal and returns what
// the terminal was sent.
func onTerminal(t *testing.T, args ...string) result {
	t.Helper()
	var errb bytes.Buffer
	out, code := onPTY(t, t.TempDir(), nil, "", func(cmd *exec.Cmd, term *os.File) {
		cmd.Stdout, cmd.Stderr = term, &errb
	}, args...)
	return result{out, errb.String(), code}
}

// On a terminal, a tool's result and a resource are shown without the
// escapes the server put in them, their text kept.
func TestResultsOnATerminalClean(t *testing.T) {
	r := onTerminal(t, withServer(t, "escapes", "call", "paint")...)
	expect(t, r, 0)
	checkClean(t, "call on a terminal", r.out)
	if r.out != "painted\nred\n" {
		t.Errorf("call on a terminal: %q", r.out)
	}
	r = onTerminal(t, withServer(t, "escapes", "read", "text://escapes")...)
	expect(t, r, 0)
	checkClean(t, "read on a terminal", r.out)
	if r.out != "resource\n" {
		t.Errorf("read on a terminal: %q", r.out)
	}
	r = onTerminal(t, withServer(t, "escapes", "tools")...)
	expect(t, r, 0, "Paints.")
	checkClean(t, "tools on a terminal", r.out)
}

// On a terminal, a result of several parts, which the model reads as a
// JSON array of their texts, is shown a part at a time; a pipe gets what
// the model reads (TestCallKeepsTheRestOfACorruptResult).
func TestResultPartsOnATerminal(t *testing.T) {
	r := onTerminal(t, withServer(t, "corrupt-image", "call", "echo")...)
	expect(t, r, 0)
	if want := "kept\n[image content (image/png) not shown to the model]\n"; r.out != want {
		t.Errorf("call on a terminal: %q, want %q", r.out, want)
	}
}
