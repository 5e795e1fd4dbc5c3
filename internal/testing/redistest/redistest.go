//go:build unix

// Package redistest runs Debian's redis-server for a test, on a loopback
// port free when it starts, with nothing saved to disk: the shared store
// of the gateway's replicas, stopped, started again and frozen as a test
// needs. A test run without redis-server fails saying how to install it
// (make deps does, as root).
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// startWait bounds the wait for redis-server to say it is ready.
const startWait = 20 * time.Second

// A Server is one redis-server of a test, stopped at the test's end.
type Server struct {
	// URL reaches it: redis://127.0.0.1:PORT/0.
	URL string

	t    testing.TB
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

// Start starts a redis-server for t, once it is ready for connections.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed: make deps installs it (apt-get install redis-server): %v", err)
	}
	s := &Server{t: t}
	var err error
	for range 5 { // a port free when picked may be taken before redis binds it
		if s.port, err = freePort(); err != nil {
			t.Fatal(err)
		}
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	s.URL = fmt.Sprintf("redis://127.0.0.1:%d/0", s.port)
	t.Cleanup(s.Stop)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// start runs redis-server on s.port and waits until it says it is ready,
// or returns what it said instead.
func (s *Server) start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.t.TempDir(), "--logfile", "", "--daemonize", "no")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting redis-server: %w", err)
	}
	ready := make(chan struct{})
	done := make(chan struct{})
	var said strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		signalled := false
		for sc.Scan() {
			if !signalled {
				said.WriteString(sc.Text() + "\n")
				if strings.Contains(sc.Text(), "Ready to accept connections") {
					signalled = true
					close(ready)
				}
			}
		}
		_ = cmd.Wait()
		close(done)
	}()
	timer := time.NewTimer(startWait)
	defer timer.Stop()
	select {
	case <-ready:
		s.cmd, s.done = cmd, done
		return nil
	case <-done:
		return fmt.Errorf("redis-server on port %d exited:\n%s", s.port, said.String())
	case <-timer.C:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("redis-server on port %d not ready within %s:\n%s", s.port, startWait, said.String())
	}
}

// Stop stops the server and waits for it to exit; a stopped server is left
// as it is.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
	s.cmd = nil
}

// Restart starts the stopped server again on its port, its data gone.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

// Freeze stops the server's process (SIGSTOP): connections are taken by
// the kernel and nothing is answered, a store that hangs rather than one
// gone. Thaw lets it go on.
func (s *Server) Freeze() {
	s.t.Helper()
	if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
}

// Thaw lets a frozen server go on (SIGCONT).
func (s *Server) Thaw() {
	s.t.Helper()
	if err := syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		s.t.Fatal(err)
	}
}

// Client returns a client of the server, for the test to look into it;
// the caller closes it.
func (s *Server) Client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
}
