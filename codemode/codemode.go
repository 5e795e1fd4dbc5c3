package codemode

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/codeapi"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Config bounds the scripts of a [Runtime]. Zero is the default in every
// field; a negative value is refused by [New], naming the field: every
// budget protects the host, so none can be lifted.
type Config struct {
	// Timeout bounds a run's wall time, the tool calls' included
	// (default 1 minute).
	Timeout time.Duration
	// CPUTime bounds the time the interpreter spends running the script,
	// its waits for tool calls aside (default 10 seconds): what stops an
	// endless loop.
	CPUTime time.Duration
	// Memory bounds the interpreter's heap, in bytes (default 64 MiB). The
	// interpreter allocates nothing outside it, so a script that allocates
	// without end is stopped with the host's memory bounded.
	Memory int
	// MaxCalls bounds the tool calls of one run (default 200).
	MaxCalls int
	// MaxInFlight bounds the calls that run at once (default 8); the
	// others wait for a place, in the order the script made them.
	MaxInFlight int
	// MaxOutput bounds the bytes of what a run gives back, console output
	// and return value together (default 64 KiB).
	MaxOutput int
	// MaxResultBytes bounds the bytes of the tool results a run takes in,
	// all its calls together (default 32 MiB): a result's text or JSON as
	// the script gets it, and the bytes of its images. A call whose result
	// would pass it rejects with an Error named BudgetError, which the
	// script may catch; its later calls may still take what is left.
	MaxResultBytes int
}

// The defaults of [Config].
const (
	defaultTimeout     = time.Minute
	defaultCPUTime     = 10 * time.Second
	defaultMemory      = 64 << 20
	defaultMaxCalls    = 200
	defaultMaxInFlight = 8
	defaultMaxOutput   = 64 << 10
	defaultMaxResults  = 32 << 20
)

// maxArgs bounds the arguments of one call, in bytes: what the host holds
// of a script's call while it is in flight.
const maxArgs = 1 << 20

func (c Config) withDefaults() (Config, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Timeout", int64(c.Timeout)}, {"CPUTime", int64(c.CPUTime)}, {"Memory", int64(c.Memory)},
		{"MaxCalls", int64(c.MaxCalls)}, {"MaxInFlight", int64(c.MaxInFlight)}, {"MaxOutput", int64(c.MaxOutput)},
		{"MaxResultBytes", int64(c.MaxResultBytes)},
	} {
		if f.v < 0 {
			return c, fmt.Errorf("codemode: Config.%s is negative: a script's budgets cannot be lifted", f.name)
		}
	}
	c.Timeout = cmp.Or(c.Timeout, defaultTimeout)
	c.CPUTime = cmp.Or(c.CPUTime, defaultCPUTime)
	c.Memory = cmp.Or(c.Memory, defaultMemory)
	c.MaxCalls = cmp.Or(c.MaxCalls, defaultMaxCalls)
	c.MaxInFlight = cmp.Or(c.MaxInFlight, defaultMaxInFlight)
	c.MaxOutput = cmp.Or(c.MaxOutput, defaultMaxOutput)
	c.MaxResultBytes = cmp.Or(c.MaxResultBytes, defaultMaxResults)
	return c, nil
}

// A Runtime runs JavaScript against the tools of one [tool.Set]: each tool
// is an async function tools.<server>.<tool>(args), every call goes
// through the Set's handler, and each run has its own interpreter, within
// its budgets. It is safe for concurrent use.
type Runtime struct {
	cfg Config
	set tool.Set
	api *codeapi.API
	// isolated runs each script in a process of its own: the program
	// serves them ([ServeIfChild]).
	isolated bool
	// hang is the tests' stand-in for a built-in that never yields (see
	// local).
	hang <-chan struct{}
	// maxName bounds the tool name a script's call may carry: that of the
	// set's longest, as the script has it (each byte that is not UTF-8 is
	// U+FFFD there, three bytes), and never less than maxCallName.
	maxName int
}

// serving says this program serves interpreters in processes of their
// own: its main called [ServeIfChild]. It is the package's one variable,
// a fact about the program's executable rather than a setting: a program
// that does not serve them must never be started as though it did.
var serving atomic.Bool

// New returns a Runtime over set's tools, named as a script reaches them
// (see the package doc). Every call a script makes goes to set.Handler as
// the model's own call would, so a set behind a policy's gate
// (policy.Policy.Gate) judges each one; a tool the set does not offer
// is not in the API.
func New(set tool.Set, cfg Config) (*Runtime, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if set.Handler == nil {
		set.Handler = tool.Compose()
	}
	a, err := codeapi.New(set.Definitions)
	if err != nil {
		return nil, err
	}
	r := &Runtime{cfg: cfg, set: set, api: a, isolated: serving.Load(), maxName: maxCallName}
	for _, d := range set.Definitions {
		r.maxName = max(r.maxName, 3*len(d.Name))
	}
	return r, nil
}

// Declarations returns the TypeScript declarations of the tools: all of
// them with no query, else those the query names (a server, server.tool)
// or matches by its words, as the model's look-up answers.
func (r *Runtime) Declarations(query string) string {
	if query == "" {
		return r.api.Declare(r.api.All())
	}
	return r.api.Describe(query)
}

// Output is what a run gave back, whole or, when it failed, so far.
type Output struct {
	// Value is what the script returned, as JSON; nil when it returned
	// nothing.
	Value json.RawMessage
	// Images are the images of the tools' results that Value holds (each
	// described there as {type: "image", mimeType, bytes}), once each, in
	// their order: for a model that takes images. Only an image object a
	// call resolved to counts; one the script makes up does not.
	Images []tool.ImagePart
	// Console is what the script wrote with console.log (and info, warn,
	// error, debug), a line each.
	Console string
	// Calls counts the tool calls the script made.
	Calls int
	// Summary says the calls in one line: how many of each tool, how many
	// failed or were refused.
	Summary string
}

// A BudgetError says that a script was stopped because it reached one of
// its budgets. The interpreter's heap full is one whatever the script does
// with the error it throws then, unless it catches it and goes on; and
// since the interpreter throws null when the heap is too full to make that
// error, a script that ends throwing null is taken to have reached it.
type BudgetError struct {
	// Budget is the [Config] field of the budget reached: "Timeout",
	// "CPUTime", "Memory", "MaxCalls" or "MaxOutput"; or
	// "MaxResultBytes", in the chain of the [ScriptError] of a call the
	// script did not catch.
	Budget string
	// Limit is the budget's value, as a person reads it.
	Limit string
}

func (e *BudgetError) Error() string {
	what, hint := e.Budget, ""
	switch e.Budget {
	case "Timeout":
		what = "time"
	case "CPUTime":
		what, hint = "CPU", ": an endless loop?"
	case "Memory":
		what = "memory"
	case "MaxCalls":
		what = "tool calls'"
	case "MaxOutput":
		what = "output's"
	case "MaxResultBytes":
		return fmt.Sprintf("a tool's result passed the script's budget of results of %s", e.Limit)
	}
	// Said to a model and to a person, neither of whom knows Config: the
	// field is Budget, for the program.
	return fmt.Sprintf("the script was stopped at its %s budget of %s%s", what, e.Limit, hint)
}

// A ScriptError says that a script threw an exception it did not catch: a
// syntax error, an error of its own, or a tool's failure, which a call
// throws.
type ScriptError struct {
	// Name is the exception's name: "SyntaxError", "TypeError", "Error";
	// "ToolError" for a tool that failed (isError), "RefusedError" for a
	// call a gate refused, "CallError" for one that could not be made,
	// "BudgetError" for a result past Config.MaxResultBytes.
	Name string
	// Message is the exception's message: for a tool's failure, the
	// tool's own.
	Message string
	// Stack is where it was thrown, as the interpreter says it.
	Stack string
	// Tool names the tool whose failure it was, as the script calls it
	// (server.tool), or "".
	Tool string
	// Err is the failure of the call, for a tool's failure: a
	// *tool.FailedError, a *tool.RefusedError, a *[BudgetError], or what
	// made the call fail.
	Err error
}

func (e *ScriptError) Error() string {
	msg := e.Message
	if e.Name != "" {
		msg = e.Name + ": " + msg
	}
	if at := e.where(); at != "" {
		msg += " (" + at + ")"
	}
	return "the script threw " + msg
}

// Unwrap returns Err.
func (e *ScriptError) Unwrap() error { return e.Err }

// where is the line of the script where it was thrown: the first frame
// of the stack in the script's own source, which the interpreter names
// <input> and starts two lines down (the function's head).
func (e *ScriptError) where() string {
	for _, line := range strings.Split(e.Stack, "\n") {
		_, at, ok := strings.Cut(line, "<input>:")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(at, ":")
		num, _, _ = strings.Cut(num, ")")
		if n, err := strconv.Atoi(num); err == nil && n > 2 {
			return "line " + strconv.Itoa(n-2)
		}
	}
	return ""
}

// errNoInterpreter is Run's error where the interpreter does not build.
var errNoInterpreter = errors.New("codemode: no JavaScript interpreter on this platform")

// Run runs script, the body of an async function, against the tools, and
// returns what it gave back. Its error is a *[ScriptError] when the script
// threw, a *[BudgetError] when it was stopped, or ctx's error when ctx
// ended first (the calls in flight are cancelled with it); the Output
// holds what the script gave back until then.
func (r *Runtime) Run(ctx context.Context, script string) (*Output, error) {
	return r.run(ctx, script)
}
