//go:build unix

package codemode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ServeIfChild lets this program run every script of code mode in a
// process of its own: the program itself, started again, whose main calls
// ServeIfChild first and in which ServeIfChild runs the script and exits,
// never returning. In any other process it returns at once, having noted
// that the program serves interpreters so. Call it first in main (what the
// program does before it, its packages' init functions, the child does
// too):
//
//	func main() {
//		codemode.ServeIfChild()
//		...
//	}
//
// A script in a process of its own holds to every budget whatever it
// runs: the host kills the process at the time budget, or when the
// interpreter is busy past its CPU budget (a built-in that never yields to
// the interpreter's own check, one long indexOf, keeps running otherwise),
// or when ctx ends; the process is limited by the system besides (CPU
// time, address space), and exits if the host does. It starts with
// nothing of the host's environment, and talks to the host over two pipes,
// as the host's calls are made by the host. The cost is a process start
// per script: docs/performance.md has the figures.
//
// Without it, the interpreter runs on a goroutine of the host's process:
// Run still returns within its budgets, but a built-in that never yields
// keeps that goroutine, and a CPU, busy until it returns. On systems other
// than Unix it returns at once and scripts run so.
func ServeIfChild() {
	if os.Getenv(childEnv) == "" {
		serving.Store(haveInterpreter)
		return
	}
	os.Exit(serveChild())
}

// childEnv marks a process started as a script's interpreter.
const childEnv = "MCPBRIDGE_CODEMODE_INTERPRETER"

// The descriptors of the child's pipes: from the host, to the host.
const (
	fromHostFD = 3
	toHostFD   = 4
)

// orphanGrace is how long past the time budget a child whose host no
// longer stops it runs before it exits of itself.
const orphanGrace = 5 * time.Second

// child is an interpreter in a process of its own, on the host's side: a
// reader of its messages, a writer of the host's, and the process, in a
// process group of its own that stop kills.
type child struct {
	cmd       *exec.Cmd
	toChild   *os.File
	fromChild *os.File
	events    chan *message
	queue     chan *message // room for the start and a result of every call
	quit      chan struct{}
	limit     int // the bytes of a message it may send
	stderr    tail
	wg        sync.WaitGroup

	readErr error // why the reader stopped, set before events closes

	once    sync.Once
	stopErr error
}

func startChild(start *message) (engine, error) {
	if !haveInterpreter {
		return nil, errNoInterpreter
	}
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("codemode: starting the script's interpreter: %w", err)
	}
	toR, toW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("codemode: starting the script's interpreter: %w", err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		return nil, fmt.Errorf("codemode: starting the script's interpreter: %w", err)
	}
	st := start.Start
	c := &child{
		toChild:   toW,
		fromChild: fromR,
		events:    make(chan *message),
		queue:     make(chan *message, st.MaxCalls+1),
		quit:      make(chan struct{}),
		limit:     maxArgs + 7*st.MaxOutput + 64<<10, // a header's text escaped in JSON, 6 bytes a character at most
	}
	c.cmd = exec.Command(exe)
	c.cmd.Args = []string{os.Args[0] + " (codemode)"} // what ps shows
	// Nothing of the host's environment: its secrets are none of the
	// script's business. Two threads of Go are enough for the
	// interpreter and its reader.
	c.cmd.Env = []string{childEnv + "=1", "GOMAXPROCS=2"}
	c.cmd.Dir = "/"
	c.cmd.ExtraFiles = []*os.File{toR, fromW}
	c.cmd.Stderr = &c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.cmd.WaitDelay = time.Second
	err = c.cmd.Start()
	toR.Close()
	fromW.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		return nil, fmt.Errorf("codemode: starting the script's interpreter: %w", err)
	}
	c.queue <- start
	c.wg.Add(2)
	go c.read()
	go c.write()
	return c, nil
}

// executable is the program's own executable: on Linux the file the
// process runs, even if its path was since replaced or removed.
func executable() (string, error) {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

func (c *child) read() {
	defer c.wg.Done()
	r := bufio.NewReaderSize(c.fromChild, 64<<10)
	for {
		m, err := readMessage(r, c.limit)
		if err != nil {
			c.readErr = err
			close(c.events)
			return
		}
		select {
		case c.events <- m:
		case <-c.quit:
			return
		}
	}
}

func (c *child) write() {
	defer c.wg.Done()
	for {
		select {
		case m := <-c.queue:
			if writeMessage(c.toChild, m) != nil {
				return // the child is gone: its reader says why
			}
		case <-c.quit:
			return
		}
	}
}

func (c *child) messages() <-chan *message { return c.events }

func (c *child) give(m *message) { c.queue <- m }

// stop kills the child's process group, unless it ended already, and
// reaps it. When it ended of itself, without an end message, its error
// says how: a budget the system stopped it at, or what it said dying.
func (c *child) stop() error {
	c.once.Do(func() {
		close(c.quit)
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		c.toChild.Close()
		c.fromChild.Close()
		c.wg.Wait()
		c.cmd.Wait()
		c.stopErr = c.why()
	})
	return c.stopErr
}

// why says how a child whose messages ended, not by stop, ended.
func (c *child) why() error {
	if c.readErr == nil {
		return nil
	}
	if !errors.Is(c.readErr, io.EOF) {
		return fmt.Errorf("codemode: the script's interpreter sent what it may not: %w", c.readErr)
	}
	ps := c.cmd.ProcessState
	said := c.stderr.lastLine()
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() && (ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU) &&
		ps.UserTime()+ps.SystemTime() >= time.Second {
		return errCPULimit // the system's limit on its CPU time
	}
	if strings.Contains(said, "out of memory") {
		return errMemory
	}
	if said != "" {
		said = ": " + said
	}
	return fmt.Errorf("codemode: the script's interpreter ended (%v)%s", ps, said)
}

// tail keeps the last bytes written to it: what a child said on stderr.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// lastLine is the last line of what was written that says something.
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(lines[i]); line != "" && !strings.HasPrefix(line, "goroutine ") {
			return cut(line, 200)
		}
	}
	return ""
}

// serveChild serves, in a child, the interpreter of one run, and returns
// the process's exit status.
func serveChild() int {
	in := bufio.NewReaderSize(os.NewFile(fromHostFD, "codemode-host-in"), 64<<10)
	out := os.NewFile(toHostFD, "codemode-host-out")
	start, err := readMessage(in, maxFrameLen)
	if err == nil && (start.Kind != kindStart || start.Start == nil) {
		err = fmt.Errorf("a %q message first", start.Kind)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "codemode: this process serves a script's interpreter (%s is set), and its host sent no script: %v\n", childEnv, err)
		return 2
	}
	if err := limit(start.Start); err != nil {
		fmt.Fprintf(os.Stderr, "codemode: limiting the script's interpreter: %v\n", err)
		return 2
	}
	inbox := make(chan *message, start.Start.MaxCalls)
	go func() {
		for {
			m, err := readMessage(in, maxFrameLen)
			if err != nil {
				os.Exit(0) // the host is gone, and so is the script
			}
			inbox <- m
		}
	}()
	time.AfterFunc(start.Start.Timeout+orphanGrace, func() { os.Exit(3) })
	serveInterp(&pipePort{w: out, inbox: inbox}, start, nil)
	return 0
}

// pipePort is a child's interpreter's port: messages written to the host's
// pipe, results from the reader of the other.
type pipePort struct {
	w     io.Writer
	inbox chan *message
}

func (p *pipePort) send(m *message) error { return writeMessage(p.w, m) }

func (p *pipePort) recv() (*message, error) { return <-p.inbox, nil }

// limit has the system hold the child to its budgets, should the
// interpreter not: its CPU time past the CPU budget and the host's grace,
// and its address space past what it holds now and what the budgets let
// it hold. No core is dumped.
func limit(st *startParams) error {
	cpu := uint64(math.Ceil((st.CPUTime + outerGrace).Seconds())) + 1
	if err := setrlimit(syscall.RLIMIT_CPU, cpu); err != nil {
		return fmt.Errorf("CPU time: %w", err)
	}
	if err := setrlimit(syscall.RLIMIT_CORE, 0); err != nil {
		return fmt.Errorf("core size: %w", err)
	}
	if raceBuilt {
		return nil
	}
	if err := limitAddressSpace(2*uint64(st.Memory) + 2*uint64(st.Results) + addressHeadroom); err != nil {
		return fmt.Errorf("address space: %w", err)
	}
	return nil
}

// setrlimit sets both limits of resource to v.
func setrlimit(resource int, v uint64) error {
	var l syscall.Rlimit
	l.Cur, l.Max = as(l.Cur, v), as(l.Max, v)
	return syscall.Setrlimit(resource, &l)
}

// as is v as a T: the systems type a limit as either.
func as[T int64 | uint64](_ T, v uint64) T { return T(v) }

// addressHeadroom is the address space a child may take past what it has
// at start and its budgets: Go's runtime, its stacks and buffers.
const addressHeadroom = 256 << 20
