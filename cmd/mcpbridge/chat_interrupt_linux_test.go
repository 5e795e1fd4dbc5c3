package main_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/demo"
)

// A screen is what a program on a pseudo-terminal shows, read as it comes.
type screen struct {
	mu    sync.Mutex
	shown bytes.Buffer
	more  chan struct{} // closed and replaced at each read
	ended chan struct{} // closed once no process holds the terminal
}

func readScreen(f *os.File) *screen {
	s := &screen{more: make(chan struct{}), ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.shown.Write(buf[:n])
			close(s.more)
			s.more = make(chan struct{})
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return s
}

// waitFor waits until the screen has shown want n times in all.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		shown, more := s.shown.String(), s.more
		s.mu.Unlock()
		if strings.Count(shown, want) >= n {
			return
		}
		select {
		case <-more:
		case <-s.ended:
			if strings.Count(s.String(), want) >= n {
				return
			}
			t.Fatalf("the terminal was closed before it showed %q %d times:\n%s", want, n, s)
		case <-deadline:
			t.Fatalf("the terminal never showed %q %d times:\n%s", want, n, shown)
		}
	}
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shown.String()
}

// A demo server over HTTP that reports, on the channels it returns, each
// tools/call and each notifications/cancelled it is sent.
func watchedDemo(t *testing.T) (url string, calls, cancels <-chan string) {
	callc, cancelc := make(chan string, 16), make(chan string, 16)
	mcp := demo.HTTPHandler(demo.WithNotesFile(t.TempDir() + "/notes.json"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case bytes.Contains(body, []byte(`"method":"tools/call"`)):
			callc <- string(body)
		case bytes.Contains(body, []byte(`"method":"notifications/cancelled"`)):
			cancelc <- string(body)
		}
		mcp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", callc, cancelc
}

func received(t *testing.T, c <-chan string, what string) string {
	t.Helper()
	select {
	case body := <-c:
		return body
	case <-time.After(30 * time.Second):
		t.Fatalf("the server was sent no %s", what)
		return ""
	}
}

// In interactive chat, Ctrl-C during a tool call cancels the turn, the
// call cancelled on the wire (the server is sent notifications/cancelled),
// and the prompt comes back for the next turn; Ctrl-C at the prompt ends
// the chat with status 130. Typed on a terminal, as a user does: the
// terminal sends SIGINT to the foreground process group.
func TestChatCtrlCCancelsTheTurn(t *testing.T) {
	slow := `{"id":"c1","type":"function","function":{"name":"slow_count","arguments":"{\"to\":50,\"delay_ms\":10000}"}}`
	model, _ := fakeOpenAI(t, slow)
	server, calls, cancels := watchedDemo(t)

	term, pty := openPTY(t)
	defer pty.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "chat", "--model", "m", "--url", server)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), ownCache(t)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	// The terminal is the session's: its Ctrl-C goes to the chat's group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close()
	shown := readScreen(pty)

	shown.waitFor(t, "> ", 1)
	io.WriteString(pty, "count slowly\n")
	call := received(t, calls, "tools/call")
	if !strings.Contains(call, "slow_count") {
		t.Fatalf("the call sent: %s", call)
	}
	io.WriteString(pty, "\x03")
	if body := received(t, cancels, "notifications/cancelled"); !strings.Contains(body, "requestId") {
		t.Errorf("the cancellation sent: %s", body)
	}
	shown.waitFor(t, "← slow_count: cancelled\r\n", 1)
	shown.waitFor(t, "turn cancelled", 1)
	shown.waitFor(t, "> ", 2)

	// The chat goes on, with the cancelled turn in its history.
	io.WriteString(pty, "are you there?\n")
	shown.waitFor(t, "The tool said: are you there?", 1)
	shown.waitFor(t, "> ", 3)
	io.WriteString(pty, "\x03")
	err := cmd.Wait()
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("Ctrl-C at the prompt: %v, want exit status 130\n%s", err, shown)
	}
}
