package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/anthropic"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/skills"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/mcpbridge/mcpbridge/toolset"
)

const chatSystem = "You are a helpful assistant with tools from MCP servers. Use them when they help; say what you did."

var chatCmd = &command{
	name:    "chat",
	usage:   "chat [-p PROMPT] [--model NAME] [target]",
	summary: "Talk to the servers through a model; tool calls are shown as they happen.",
	examples: `  OPENAI_API_KEY=sk-... mcpbridge chat
  OPENAI_BASE_URL=http://localhost:11434/v1 mcpbridge chat --model qwen3:8b -p "List my notes"
  ANTHROPIC_API_KEY=... mcpbridge chat --config mcp.json

The model: any OpenAI-compatible server when OPENAI_API_KEY or OPENAI_BASE_URL
is set (Ollama, vLLM, llama.cpp, LM Studio, OpenAI, or Gemini at
https://generativelanguage.googleapis.com/v1beta/openai/), else Anthropic when
ANTHROPIC_API_KEY is set. Tool names and schemas follow that vendor's rules
unless --vendor says otherwise.`,
	setup: func(fs *flag.FlagSet) runFunc {
		t := addTarget(fs)
		t.addVendor(fs, "", "the `VENDOR` whose rules names and schemas follow: openai, anthropic or gemini (default: the model's)")
		prompt := fs.String("p", "", "run one turn with `PROMPT` and exit")
		modelName := fs.String("model", "", "the model `NAME` (default: gpt-4.1-mini, or claude-sonnet-4-5 with Anthropic)")
		return func(ctx context.Context, pos, serverCmd []string, s *streams) error {
			if len(pos) > 0 {
				return usagef("chat takes no arguments; give a prompt with -p")
			}
			model, err := chooseModel(*modelName)
			if err != nil {
				return err
			}
			// Names and schemas follow the model's vendor unless --vendor
			// says otherwise.
			if _, isOpenAI := model.(*openai.Model); isOpenAI && t.vendor == "" {
				t.vendor = openAIVendor(os.Getenv("OPENAI_BASE_URL"))
			}
			ts, cfg, err := t.start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer ts.Close()
			names, err := serverLabels(cfg)
			if err != nil {
				return err
			}
			sets := skillSets(ctx, ts, cfg, names, s)
			instructions := map[string]string{}
			for name, text := range ts.Instructions() {
				instructions[names[name]] = text
			}
			// One agent for the whole chat: each turn's run takes the
			// toolset's catalog as it stands then.
			a, err := agent.New(agent.Config{
				Model:              &spinning{Model: model, s: s},
				System:             chatSystem,
				Tools:              []tool.Source{ts},
				ServerInstructions: instructions,
				Skills:             sets,
				OnToolCall:         showCalls(s),
			})
			if err != nil {
				return err
			}
			var history []llm.Message
			turn := func(text string) error {
				res, err := a.Run(ctx, append(history, llm.UserText(text)))
				if res != nil {
					history = res.Messages
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(s.out, content(s.out, res.Text))
				return nil
			}
			if *prompt != "" {
				return turn(*prompt)
			}
			term := isTerminal(s.out)
			lines := readLines(s.in)
			for {
				if term {
					fmt.Fprint(s.out, "> ")
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
				if err := turn(text); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return err
				}
			}
		}
	},
}

// readLines reads r line by line on a goroutine of its own, so that the
// chat loop can stop on Ctrl-C while a read blocks. The goroutine ends at
// the end of input; a read still blocked when the command returns ends with
// the process.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// chooseModel picks the model from the environment, or says exactly what
// to set.
func chooseModel(name string) (llm.Model, error) {
	base, key := os.Getenv("OPENAI_BASE_URL"), os.Getenv("OPENAI_API_KEY")
	switch {
	case base != "" || key != "":
		if name == "" {
			name = "gpt-4.1-mini"
		}
		var opts []openai.Option
		if base != "" {
			opts = append(opts, openai.WithBaseURL(base))
		}
		return openai.New(name, opts...)
	case os.Getenv("ANTHROPIC_API_KEY") != "":
		if name == "" {
			name = "claude-sonnet-4-5"
		}
		return anthropic.New(name, anthropic.WithPromptCaching(true)) // the system prompt and tools are the same every turn
	}
	return nil, usagef("no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible server such as Ollama at http://localhost:11434/v1), or ANTHROPIC_API_KEY")
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

// serverLabels gives every server of cfg its label for the agent. Two names
// that make the same label are an error: merged, one server's instructions
// and skills would pass as the other's.
func serverLabels(cfg *toolset.Config) (map[string]string, error) {
	labels := make(map[string]string, len(cfg.Servers))
	owner := map[string]string{}
	for _, sc := range cfg.Servers {
		l := agent.Label(sc.Name)
		if other, taken := owner[l]; taken {
			return nil, fmt.Errorf("servers %q and %q have the same label %q for the model; rename one", other, sc.Name, l)
		}
		owner[l] = sc.Name
		labels[sc.Name] = l
	}
	return labels, nil
}

// skillSets lists the skills of every running server that publishes some.
// A server whose listing fails is named on stderr and its skills left out.
func skillSets(ctx context.Context, ts *toolset.Toolset, cfg *toolset.Config, labels map[string]string, s *streams) []agent.SkillSet {
	var sets []agent.SkillSet
	for _, sc := range cfg.Servers {
		p, ok := ts.Provider(sc.Name)
		if !ok || !skills.Declared(p.ServerExtensions()) {
			continue
		}
		c := skills.New(p)
		list, err := c.List(ctx)
		if err != nil {
			fmt.Fprintf(s.err, "%s: skills left out: %s\n", untrusted.Line(sc.Name), untrusted.Line(err.Error()))
			continue
		}
		if len(list) > 0 {
			sets = append(sets, agent.SkillSet{Server: labels[sc.Name], Client: c, Skills: list})
		}
	}
	return sets
}

// spinning shows a spinner while the model thinks.
type spinning struct {
	llm.Model
	s *streams
}

func (m *spinning) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	sp := spin(m.s.err, "thinking…")
	defer sp.stop()
	return m.Model.Generate(ctx, req)
}

// showCalls returns the agent's OnToolCall hook: it prints each call as it
// starts and the first line of its answer when it is done, a line at a time
// so that parallel calls do not garble each other.
func showCalls(s *streams) func(llm.ToolCall) func(tool.Result, error) {
	var mu sync.Mutex
	color := useColor(s.err)
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(s.err, format+"\n", args...)
	}
	return func(call llm.ToolCall) func(tool.Result, error) {
		say("%s %s %s", paint(color, cyan, "→"), untrusted.Line(call.Name), compact(call.Arguments))
		return func(res tool.Result, err error) {
			if err != nil {
				say("%s %s", paint(color, red, "←"), untrusted.Line(err.Error()))
				return
			}
			line, _, _ := strings.Cut(strings.TrimSpace(untrusted.Text(res.Text())), "\n")
			say("%s %s", paint(color, dim, "←"), untrusted.Line(line))
		}
	}
}

func compact(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return untrusted.Line(string(args))
}
