package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// host is what a command answers servers with for its user, and the flags
// that say it: roots, for every command that starts servers (none unless
// named); input for
// the commands that call (AddInput); sampling for call and chat
// (AddSampling), and declared alone by tools --sampling (AddListSampling).
// Elicitation is declared by every command, so that a server lists the
// same tools to tools as to call; a command that calls nothing is never
// asked.
type host struct {
	roots    dirs
	noRoots  bool
	noInput  *bool
	sampling *bool
	model    llm.Model
	turns    *turns // the command's turns (signal.go)
	// page asks in place of the terminal ([Target.AskIn]); nil: the terminal.
	page     tool.Elicitor
	pageSamp func(llm.Model) mcptool.Sampling

	linesOnce sync.Once
	lines     <-chan string
}

// dirs is a repeatable directory flag.
type dirs []string

func (d *dirs) String() string     { return "" }
func (d *dirs) Set(v string) error { *d = append(*d, v); return nil }

func (h *host) add(fs *flag.FlagSet) {
	fs.Var(&h.roots, "root", "tell the servers they may work in `DIR` (repeatable), in place of a config's \"roots\"; none by default, as a filesystem server may replace the directories it was given with these")
	fs.BoolVar(&h.noRoots, "no-roots", false, "declare no roots, not even a config's \"roots\"")
}

// applyRoots gives every server of cfg the roots --root names, or none
// with --no-roots; without either, each keeps its config's "roots", and a
// server without them is told of none: a root the user did not name could
// widen what a server was given (the reference filesystem server replaces
// the directories of its command line with its client's roots).
func (h *host) applyRoots(cfg *config.Config) error {
	switch {
	case h.noRoots && len(h.roots) > 0:
		return Usagef("give --root or --no-roots, not both")
	case h.noRoots:
		for i := range cfg.Servers {
			cfg.Servers[i].Roots = nil
		}
	case len(h.roots) > 0:
		for _, dir := range h.roots {
			if _, err := mcpclient.RootOf(dir); err != nil {
				return Usagef("--root: %v", err)
			}
		}
		for i := range cfg.Servers {
			cfg.Servers[i].Roots = slices.Clone(h.roots)
		}
	}
	return nil
}

// AddInput registers --no-input, for the commands whose calls may ask the
// user (a server's elicitation), which they do on the terminal.
func (t *Target) AddInput(fs *flag.FlagSet) {
	t.host.noInput = fs.Bool("no-input", false, "never ask on the terminal: decline what a server asks the user, with a line saying what it asked")
}

// AddSampling registers --sampling, for the commands that can let a
// server ask the model for completions; the model is [Target.SetModel]'s.
func (t *Target) AddSampling(fs *flag.FlagSet) {
	t.host.sampling = fs.Bool("sampling", false, "let the servers ask the model for completions (sampling), each request shown on stderr")
}

// AddListSampling registers --sampling for the commands that list and call
// nothing (tools): it declares sampling, so that a server lists the tools it
// offers only to a client that allows it, and refuses any request, as no
// model is there to answer.
func (t *Target) AddListSampling(fs *flag.FlagSet) {
	t.host.sampling = fs.Bool("sampling", false, "list the tools as call --sampling sees them: a server may offer some only to a client that allows sampling (no model is asked)")
}

// Sampling reports whether --sampling was given.
func (t *Target) Sampling() bool { return t.host.sampling != nil && *t.host.sampling }

// SetModel sets the model that answers the servers' sampling requests.
func (t *Target) SetModel(m llm.Model) { t.host.model = m }

// AskIn has what the servers ask the user asked through elicit, and their
// sampling requests (with --sampling) answered as sampling says of the
// model, in place of the terminal: web asks in its page. With --no-input
// the terminal's way holds: each question declined with a line, each
// sampling request shown.
func (t *Target) AskIn(elicit tool.Elicitor, sampling func(llm.Model) mcptool.Sampling) {
	t.host.page, t.host.pageSamp = elicit, sampling
}

// Lines returns stdin's lines, read once for the command: its own input
// (chat's turns) and the answers to what servers ask come from the same
// lines, in order.
func (t *Target) Lines(s *Streams) <-chan string {
	t.host.linesOnce.Do(func() { t.host.lines = ReadLines(s.In) })
	return t.host.lines
}

// hostOptions are the providers' options that answer for the user: the
// terminal's answers, the model. The roots are the config's
// ([host.applyRoots]).
func (t *Target) hostOptions(s *Streams) mcptool.Options {
	h := &t.host
	a := &asker{lines: func() <-chan string { return t.Lines(s) }, w: s.Err, open: openURL, turn: h.turns.current}
	switch {
	case h.noInput == nil:
		a.refuse = "this command asks nothing"
	case *h.noInput:
		a.refuse = "--no-input was given"
	case !IsTerminal(s.In) || !IsTerminal(s.Err):
		a.refuse = "stdin or stderr is not a terminal to ask on"
	}
	inPage := h.page != nil && (h.noInput == nil || !*h.noInput)
	o := mcptool.Options{Elicitor: a.elicit}
	if inPage {
		o.Elicitor = h.page
	}
	if t.Sampling() {
		sampling := mcptool.Sampling{Model: noModel{}, Approve: func(context.Context, *mcptool.SamplingRequest) error {
			return errors.New("this command asks no model; call --sampling and chat --sampling do")
		}}
		switch {
		case h.model != nil && inPage && h.pageSamp != nil:
			sampling = h.pageSamp(h.model)
		case h.model != nil:
			sampling = mcptool.Sampling{Model: shownAnswers{h.model, s.Err}, Approve: showRequest(s.Err)}
		}
		o.Sampling = &sampling
	}
	return o
}

// showRequest shows a server's sampling request as it goes to the model.
func showRequest(w io.Writer) func(context.Context, *mcptool.SamplingRequest) error {
	return func(_ context.Context, r *mcptool.SamplingRequest) error {
		var last string
		if n := len(r.Messages); n > 0 {
			last = r.Messages[n-1].Text()
		}
		fmt.Fprintf(w, "server %q asks the model: %s\n  (system prompt %q; %d messages, %d tools, up to %d tokens)\n",
			untrusted.Line(r.Server), untrusted.Line(last), untrusted.Line(r.System), len(r.Messages), len(r.Tools), r.MaxTokens)
		return nil
	}
}

// shownAnswers is a model whose answers to servers are shown.
type shownAnswers struct {
	llm.Model
	w io.Writer
}

func (m shownAnswers) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.Model.Generate(ctx, req)
	switch {
	case err != nil:
		fmt.Fprintf(m.w, "  the model failed: %s\n", untrusted.Line(err.Error()))
	default:
		answer, _, _ := strings.Cut(strings.TrimSpace(resp.Message.Text()), "\n")
		for _, c := range resp.Message.ToolCalls {
			answer += fmt.Sprintf(" [calls %s]", untrusted.Line(c.Name))
		}
		fmt.Fprintf(m.w, "  the model answered: %s\n", untrusted.Line(answer))
	}
	return resp, err
}

// Name is the model's, which the server is told.
func (m shownAnswers) Name() string {
	if n, ok := m.Model.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// Models makes the model of a name ("" for the default) from the
// environment: chat's models, which mcpbridge-chat passes to [Program].
type Models func(ctx context.Context, name string) (llm.Model, error)

var modelsKey = ctxkey.New[Models]("cli models")

func withModels(ctx context.Context, m Models) context.Context {
	if m == nil {
		return ctx
	}
	return modelsKey.With(ctx, m)
}

func modelsOf(ctx context.Context) Models { return modelsKey.Value(ctx) }

// chooseModel makes the model that answers sampling, with --sampling.
func (t *Target) chooseModel(ctx context.Context, name string) error {
	if !t.Sampling() {
		return nil
	}
	models := modelsOf(ctx)
	if models == nil {
		return errors.New("--sampling needs the program mcpbridge-chat, where the models are")
	}
	m, err := models(ctx, name)
	if err != nil {
		return err
	}
	t.SetModel(m)
	return nil
}

// hasFlag reports whether the boolean flag name is set among args, before
// the server command.
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-" + name, "--" + name, "-" + name + "=true", "--" + name + "=true":
			return true
		}
	}
	return false
}

// noModel stands for the model of a command that has none: its sampling
// refuses every request before a model would be asked.
type noModel struct{}

func (noModel) Generate(context.Context, llm.Request) (*llm.Response, error) {
	return nil, errors.New("no model")
}

func (noModel) Vision() bool { return false }
