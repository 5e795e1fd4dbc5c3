package stdio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

const (
	// DefaultMaxLineLength is the inbound message size limit when
	// [Command.MaxLineLength] is 0; it matches go-sdk's.
	DefaultMaxLineLength = 16 << 20
	// DefaultProbeTimeout is how long a "server/discover" request may go
	// unanswered once the server answered the ping written after it, when
	// [Command.ProbeTimeout] is 0. A server that supports it answers at
	// once; one that ignores unknown methods never does.
	DefaultProbeTimeout = 2 * time.Second
	// DefaultStopTimeout is each bounded wait while stopping a server when
	// [Command.StopTimeout] is 0.
	DefaultStopTimeout = 2 * time.Second
)

// Command describes an MCP server to start as a subprocess; it implements
// mcp.Transport. Each Connect starts a new process, so a Command may be
// reused.
type Command struct {
	// Path is the executable. A name without a slash is looked up in this
	// process's PATH, as exec.Command does. No shell is involved, so
	// nothing in Path or Args is expanded or interpreted.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Env is added to [MinimalEnv], replacing variables of the same name.
	// Nothing else of this process's environment passes to the server.
	Env map[string]string
	// Dir is the server's working directory; empty means this process's.
	Dir string
	// Stderr receives the server's stderr; nil discards it, as exec.Cmd
	// does. Either way the connection reads the server's stderr itself, to
	// keep its last lines ([Conn.Stderr]), and feeds the writer from a
	// goroutine: it must be safe to call from it.
	Stderr io.Writer
	// MaxLineLength bounds each inbound message in bytes; 0 means
	// DefaultMaxLineLength and a negative value means no limit. A longer
	// message is skipped, failing the request it answers.
	MaxLineLength int
	// ProbeTimeout bounds how long a "server/discover" request may go
	// unanswered, from the server's answer to the ping written after it,
	// before it is failed with "method not found" (ten times as long from
	// the write, for a server that answers no ping); 0 means
	// DefaultProbeTimeout, and a negative value no bound but the caller's
	// (and no ping).
	ProbeTimeout time.Duration
	// StopTimeout is each of the bounded waits when stopping the server
	// (after closing stdin, after SIGTERM, after SIGKILL); 0 means
	// DefaultStopTimeout. A negative value is refused: a server that will
	// not stop must not hold Close.
	StopTimeout time.Duration
	// Secrets are masked in what the connection keeps of the server's words
	// ([Conn.Stderr], a [ServerError]'s lines) and in the stderr it passes
	// to Stderr: the values of Env, say, which a server that prints its
	// configuration would otherwise have quoted in the host's errors.
	Secrets redact.Secrets
	// Logger receives the start and exit (at debug level) and anomalies,
	// but never argument or environment values, which may be secrets, nor
	// message contents; nil discards.
	Logger *slog.Logger
}

var _ mcp.Transport = (*Command)(nil)

var errEmptyPath = errors.New("no command to start")

// Connect implements mcp.Transport by starting the server; see [Command.Start].
func (c *Command) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Start(ctx)
	if err != nil {
		return nil, err // not a typed nil *Conn in the interface
	}
	return conn, nil
}

// Start starts the server and returns its connection. ctx only bounds the
// start: go-sdk passes the context of the connect call, which often ends
// long before the session should, so the process is not tied to it.
func (c *Command) Start(ctx context.Context) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.Path == "" {
		return nil, errEmptyPath
	}
	if c.StopTimeout < 0 {
		return nil, fmt.Errorf("starting %q: Command.StopTimeout %v: negative, and stopping a server is always bounded", c.Path, c.StopTimeout)
	}
	env, err := buildEnv(c.Env)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", c.Path, err)
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	limit := c.MaxLineLength
	if limit == 0 {
		limit = DefaultMaxLineLength
	}
	probeTimeout := cmp.Or(c.ProbeTimeout, DefaultProbeTimeout) // negative: none
	stopTimeout := cmp.Or(c.StopTimeout, DefaultStopTimeout)

	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = env
	cmd.Dir = c.Dir
	setProcessGroup(cmd)
	// All three stdio streams are files, so exec starts no copying
	// goroutines today; should that change, Wait must still not hang on a
	// pipe that a surviving grandchild holds open.
	cmd.WaitDelay = stopTimeout

	// Our own pipes rather than StdoutPipe: exec closes those in Wait,
	// which the reaper calls while output may still be unread.
	var toClose []*os.File
	closeAll := func() {
		for _, f := range toClose {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			toClose = append(toClose, r, w)
		}
		return r, w, err
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", c.Path, err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starting %q: %w", c.Path, err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starting %q: %w", c.Path, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW

	if err := cmd.Start(); err != nil {
		closeAll()
		// Named by the program alone: the arguments may hold secrets.
		if notFound(err) && strings.ContainsAny(c.Path, " \t") {
			return nil, fmt.Errorf("starting MCP server %q (no shell splits the command: give its arguments as args): %w", c.Path, err)
		}
		return nil, fmt.Errorf("starting MCP server %q: %w", c.Path, err)
	}
	// The child has its copies; ours would keep its stdin from ever
	// reaching EOF and our stdout/stderr reads from ever seeing one.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()
	logger.Debug("started MCP server", "command", c.Path, "pid", cmd.Process.Pid)

	conn := newConn(connConfig{
		name:         c.Path,
		cmd:          cmd,
		stdin:        stdinW,
		stdout:       stdoutR,
		stderr:       stderrR,
		stderrTo:     c.Stderr,
		secrets:      c.Secrets,
		limit:        limit,
		probeTimeout: probeTimeout,
		stopTimeout:  stopTimeout,
		logger:       logger,
	})
	return conn, nil
}

// notFound reports whether starting a command failed because there is no
// such program.
func notFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}
