package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
	"github.com/mcpbridge/mcpbridge/codemode"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

const chatSystem = "You are a helpful assistant with tools from MCP servers. Use them when they help; say what you did."

// Command is mcpbridge's chat command: a model on the servers' tools, one
// turn with -p, else a turn per line of stdin. Run it with [cli.Program].
var Command = &cli.Command{
	Name:    "chat",
	Usage:   "chat [-p PROMPT] [--model NAME] [--code] [target]",
	Summary: cli.ChatSummary,
	Examples: `  OPENAI_API_KEY=sk-... mcpbridge chat
  OPENAI_BASE_URL=http://localhost:11434/v1 mcpbridge chat --model qwen3:8b -p "List my notes"
  ANTHROPIC_API_KEY=... mcpbridge chat --config mcp.json

The model: any OpenAI-compatible server when OPENAI_API_KEY or OPENAI_BASE_URL
is set (Ollama, vLLM, llama.cpp, LM Studio, OpenAI, or Gemini at
https://generativelanguage.googleapis.com/v1beta/openai/), else Anthropic when
ANTHROPIC_API_KEY is set. Tool names and schemas follow that vendor's rules
unless --vendor says otherwise. Without --model, a server at OPENAI_BASE_URL
other than OpenAI's is asked for its models: its only one is used, and
among several chat asks for --model.

Typing on a terminal, Ctrl-C during a turn cancels it (its tool calls
cancelled on their servers) and the prompt comes back; Ctrl-C at the
prompt, or a second one during a turn, ends the chat (status 130).

With --code the model gets two tools in place of the catalog: run_code, which
runs JavaScript against the tools as mcpbridge run does (see its --help), and
describe_tools, which answers their TypeScript declarations.`,
	Setup: func(fs *flag.FlagSet) cli.RunFunc {
		t := cli.AddTarget(fs)
		prompt := fs.String("p", "", "run one turn with `PROMPT` and exit")
		modelName, code := addModelFlags(fs, t)
		return func(ctx context.Context, pos, serverCmd []string, s *cli.Streams) error {
			if len(pos) > 0 {
				return cli.Usagef("chat takes no arguments; give a prompt with -p")
			}
			model, err := ChooseModel(ctx, *modelName)
			if err != nil {
				return err
			}
			ts, err := startFor(ctx, t, model, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			// One agent for the whole chat: each turn's run takes the
			// toolset's catalog as it stands then.
			calls := &callLog{w: s.Err, color: cli.UseColor(s.Err)}
			// The servers' instructions and skills come with their tools.
			a, err := agent.New(withCode(agent.Config{
				Model:      &shownModel{Model: model, s: s, calls: calls},
				System:     chatSystem,
				Tools:      []tool.Source{ts},
				OnToolCall: calls.started,
				Logger:     t.Logger(),
				Vendor:     t.Vendor, // the agent's own tools, as the catalog
			}, *code))
			if err != nil {
				return err
			}
			var history []llm.Message
			turn := func(ctx context.Context, text string) error {
				res, err := a.Run(ctx, append(history, llm.UserText(text)))
				if res != nil {
					history = res.Messages
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(s.Out, cli.Content(s.Out, res.Text))
				return nil
			}
			if *prompt != "" {
				return turn(ctx, *prompt)
			}
			term := cli.IsTerminal(s.Out)
			// Turns typed on a terminal: Ctrl-C cancels one, not the chat.
			typed := cli.IsTerminal(s.In)
			lines := t.Lines(s) // a server's questions take their answers from these lines too
			for {
				if term {
					fmt.Fprint(s.Out, "> ")
				}
				var text string
				select {
				case <-ctx.Done(): // Ctrl-C while waiting for a line
					return nil
				case line, ok := <-lines:
					if !ok {
						return nil
					}
					text = strings.TrimSpace(line)
				}
				if text == "" {
					continue
				}
				turnCtx, end := ctx, func() bool { return false }
				if typed {
					turnCtx, end = cli.Turn(ctx)
				}
				err := turn(turnCtx, text)
				interrupted := end()
				switch {
				case ctx.Err() != nil: // stopped: the command says by what
					return nil
				case interrupted && err != nil:
					fmt.Fprintln(s.Err, "turn cancelled; Ctrl-C at the prompt ends the chat")
				case err != nil:
					return err
				}
			}
		}
	},
}

// ChooseModel picks the model from the environment, or says exactly what
// to set; name is --model, "" for the vendor's default: OpenAI's and
// Anthropic's own, or for another server at OPENAI_BASE_URL the one model
// it lists (its /models), since OpenAI's name means nothing there. It is
// the [cli.Models] of mcpbridge-chat.
func ChooseModel(ctx context.Context, name string) (llm.Model, error) {
	base, key := os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
	switch {
	case base != "" || key != "":
		if name == "" && base != "" && !atOpenAI(base) {
			var err error
			if name, err = onlyModel(ctx, base, key); err != nil {
				return nil, err
			}
		}
		if name == "" {
			name = "gpt-4.1-mini"
		}
		return openai.New(name, &openai.Options{BaseURL: base})
	case os.Getenv("ANTHROPIC_API_KEY") != "":
		if name == "" {
			name = "claude-sonnet-4-5"
		}
		return anthropic.New(name, &anthropic.Options{PromptCaching: true}) // the system prompt and tools are the same every turn
	}
	return nil, cli.Usagef("no model configured: set OPENAI_API_KEY for api.openai.com, OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama at http://localhost:11434/v1, or ANTHROPIC_API_KEY")
}

// atOpenAI reports whether base is OpenAI's own API.
func atOpenAI(base string) bool {
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// Bounds on asking a server for its models: the time, the bytes of the
// answer read, the names an error lists.
const (
	listTimeout  = 10 * time.Second
	maxModelList = 1 << 20
	maxNamed     = 10
	maxNameRunes = 100
)

// onlyModel is the one model the OpenAI-compatible server at base lists,
// or an error that asks for --model: the server lists several (named),
// none, or did not answer.
func onlyModel(ctx context.Context, base, key string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
	if err != nil {
		return "", cli.Usagef("OPENAI_BASE_URL is set, and is no URL: give --model NAME, and a URL such as http://localhost:11434/v1")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", cli.Usagef("OPENAI_BASE_URL is set, and its server did not list its models (%s): give --model NAME", untrusted.Line(redact.URLs(err.Error())))
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", cli.Usagef("OPENAI_BASE_URL is set, and its server did not list its models (HTTP %s): give --model NAME", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelList)).Decode(&list); err != nil {
		return "", cli.Usagef("OPENAI_BASE_URL is set, and its server did not list its models (%s): give --model NAME", untrusted.Line(err.Error()))
	}
	switch len(list.Data) {
	case 0:
		return "", cli.Usagef("OPENAI_BASE_URL is set, and its server lists no model: give --model NAME")
	case 1:
		return list.Data[0].ID, nil
	}
	var names []string
	for _, m := range list.Data[:min(len(list.Data), maxNamed)] {
		names = append(names, untrusted.Cut(untrusted.Line(m.ID), maxNameRunes))
	}
	if more := len(list.Data) - len(names); more > 0 {
		names = append(names, fmt.Sprintf("and %d more", more))
	}
	return "", cli.Usagef("OPENAI_BASE_URL is set, and its server has %d models: give --model NAME, one of %s", len(list.Data), strings.Join(names, ", "))
}

// startFor starts t's servers for model (nil when none is chosen), which
// answers their sampling too (with --sampling), and whose vendor's rules
// their tools' names and schemas follow unless --vendor says otherwise.
func startFor(ctx context.Context, t *cli.Target, model llm.Model, serverCmd []string, s *cli.Streams) (*catalog.Toolset, error) {
	if model != nil {
		t.SetModel(model)
		if _, isOpenAI := model.(*openai.Model); isOpenAI && t.Vendor == "" {
			t.Vendor = openAIVendor(os.Getenv("OPENAI_BASE_URL"))
		}
	}
	ts, _, err := t.Start(ctx, serverCmd, s)
	return ts, err
}

// openAIVendor is whose rules tools follow for an OpenAI-compatible server
// at base: Gemini's for Google's endpoint (its OpenAI layer passes schemas on
// to Gemini), OpenAI's for any other.
func openAIVendor(base string) schema.Vendor {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(u.Hostname(), "generativelanguage.googleapis.com") {
		return schema.Gemini
	}
	return schema.OpenAI
}

// shownModel is the chat's model as the user watches it: a spinner while
// it thinks, then the tool calls it asks for.
type shownModel struct {
	llm.Model
	s     *cli.Streams
	calls *callLog
}

func (m *shownModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	sp := spin(m.s.Err, "thinking…")
	resp, err := m.Model.Generate(ctx, req)
	sp.stop()
	if err == nil && resp != nil {
		m.calls.asked(resp.Message.ToolCalls)
	}
	return resp, err
}

// Name and Vendor pass on what the chat's model says of itself, which the
// agent's chat spans carry (gen_ai.request.model, gen_ai.provider.name).
func (m *shownModel) Name() string {
	n, _ := m.Model.(interface{ Name() string })
	if n == nil {
		return ""
	}
	return n.Name()
}

func (m *shownModel) Vendor() string {
	v, _ := m.Model.(interface{ Vendor() string })
	if v == nil {
		return ""
	}
	return v.Vendor()
}

// A callLog shows a chat's tool calls: a turn's calls when the model asks
// for them, in its order, and each result when its call is done. Parallel
// calls finish in any order, so when a turn has several, each is numbered
// and its result line carries its number and tool. A line is written
// whole, so that concurrent results do not garble each other.
type callLog struct {
	w     io.Writer
	color bool

	mu   sync.Mutex
	open []shownCall // the latest turn's calls
}

type shownCall struct {
	call  llm.ToolCall
	label string // "add_note", or "[2] add_note" in a turn of several
	taken bool   // its call has started
}

// asked shows the calls of a model turn.
func (l *callLog) asked(calls []llm.ToolCall) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open = l.open[:0]
	for i, c := range calls {
		label := untrusted.Line(c.Name)
		if len(calls) > 1 {
			label = fmt.Sprintf("[%d] %s", i+1, label)
		}
		l.open = append(l.open, shownCall{call: c, label: label})
		fmt.Fprintf(l.w, "%s %s %s\n", cli.Paint(l.color, cli.Cyan, "→"), label, compact(c.Arguments))
	}
}

// started is the agent's OnToolCall hook: it finds the call among those
// shown, and returns what shows its result.
func (l *callLog) started(call llm.ToolCall) func(tool.Reply, error) {
	label := l.claim(call)
	return func(res tool.Reply, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if err != nil {
			msg := untrusted.Line(err.Error())
			if errors.Is(err, context.Canceled) {
				msg = "cancelled" // by Ctrl-C: the chain says nothing more
			}
			fmt.Fprintf(l.w, "%s %s: %s\n", cli.Paint(l.color, cli.Red, "←"), label, msg)
			return
		}
		line, _, _ := strings.Cut(strings.TrimSpace(untrusted.Text(res.Text())), "\n")
		fmt.Fprintf(l.w, "%s %s: %s\n", cli.Paint(l.color, cli.Dim, "←"), label, untrusted.Line(line))
	}
}

// claim returns the label of the first shown call that is call and has not
// started. The agent runs only the calls a model turn asked for, so there
// is one; were there none, the call is shown now.
func (l *callLog) claim(call llm.ToolCall) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.open {
		c := &l.open[i]
		if !c.taken && c.call.ID == call.ID && c.call.Name == call.Name && bytes.Equal(c.call.Arguments, call.Arguments) {
			c.taken = true
			return c.label
		}
	}
	label := untrusted.Line(call.Name)
	fmt.Fprintf(l.w, "%s %s %s\n", cli.Paint(l.color, cli.Cyan, "→"), label, compact(call.Arguments))
	return label
}

func compact(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return untrusted.Line(string(args))
}

// withCode puts cfg in code mode with --code; without, the agent chooses
// its mode by the catalog's size.
func withCode(cfg agent.Config, code bool) agent.Config {
	if code {
		cfg.Code = codemode.Config{}
	}
	return cfg
}

// addModelFlags adds to fs the flags of a command with a model on t's
// servers (chat, web): the vendor, the description cap, the model, code
// mode, and how the servers' questions and sampling are answered.
func addModelFlags(fs *flag.FlagSet, t *cli.Target) (modelName *string, code *bool) {
	t.AddVendor(fs, "", "the `VENDOR` whose rules names and schemas follow: openai, anthropic or gemini (default: the model's)")
	t.AddMaxDescription(fs)
	modelName = fs.String("model", "", "the model `NAME` (default: gpt-4.1-mini at api.openai.com, the one model another OPENAI_BASE_URL lists, or claude-sonnet-4-5 with Anthropic)")
	code = fs.Bool("code", false, "code mode: the model writes JavaScript that calls the tools (run_code)")
	t.AddInput(fs)
	t.AddSampling(fs)
	return modelName, code
}
