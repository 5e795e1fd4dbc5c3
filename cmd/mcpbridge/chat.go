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
	"regexp"
	"strings"

	"github.com/mcpbridge/mcpbridge/agent"
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
		prompt := fs.String("p", "", "run one turn with `PROMPT` and exit")
		modelName := fs.String("model", "", "the model `NAME` (default gpt-4.1-mini, or claude-sonnet-4-5 with Anthropic)")
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
			vendorSet := false
			fs.Visit(func(f *flag.Flag) { vendorSet = vendorSet || f.Name == "vendor" })
			if _, isOpenAI := model.(*openai.Model); isOpenAI && !vendorSet {
				t.vendor.v = openAIVendor(os.Getenv("OPENAI_BASE_URL"))
			}
			ts, cfg, err := t.start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer ts.Close()
			sets := skillSets(ctx, ts, cfg, s)
			var history []llm.Message
			turn := func(text string) error {
				snap := ts.Snapshot(ctx)
				a, err := agent.New(agent.Config{
					Model:              &spinning{Model: model, s: s},
					System:             chatSystem,
					Handler:            &shown{next: snap, s: s},
					Definitions:        snap.Definitions(),
					ServerInstructions: labels(ts.Instructions()),
					Skills:             sets,
				})
				if err != nil {
					return err
				}
				res, err := a.Run(ctx, append(history, llm.UserText(text)))
				if res != nil {
					history = res.Messages
				}
				if err != nil {
					return err
				}
				fmt.Fprintln(s.out, res.Text)
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

var labelChars = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// openAIVendor is whose rules tools follow for an OpenAI-compatible server
// at base: Gemini's for Google's endpoint (its OpenAI layer passes schemas on
// to Gemini), OpenAI's for any other.
func openAIVendor(base string) schema.Vendor {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(u.Hostname(), "generativelanguage.googleapis.com") {
		return schema.Gemini
	}
	return schema.OpenAI
}

// label makes a server name a valid label for the agent.
func label(name string) string {
	l := labelChars.ReplaceAllString(name, "_")
	if len(l) > 64 {
		l = l[:64]
	}
	return l
}

// labels makes server names valid instruction labels.
func labels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for name, text := range in {
		out[label(name)] = text
	}
	return out
}

// skillSets lists the skills of every running server that publishes some.
// A server whose listing fails is named on stderr and its skills left out.
func skillSets(ctx context.Context, ts *toolset.Toolset, cfg *toolset.Config, s *streams) []agent.SkillSet {
	var sets []agent.SkillSet
	for _, sc := range cfg.Servers {
		p, ok := ts.Provider(sc.Name)
		if !ok || !skills.Declared(p.ServerExtensions()) {
			continue
		}
		c := skills.New(p)
		list, err := c.List(ctx)
		if err != nil {
			fmt.Fprintf(s.err, "%s: skills left out: %v\n", sc.Name, err)
			continue
		}
		if len(list) > 0 {
			sets = append(sets, agent.SkillSet{Server: label(sc.Name), Client: c, Skills: list})
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

// shown prints each tool call and the first line of its answer as it
// happens.
type shown struct {
	next tool.Handler
	s    *streams
}

func (h *shown) Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	color := useColor(h.s.err)
	fmt.Fprintf(h.s.err, "%s %s %s\n", paint(color, cyan, "→"), name, compact(args))
	res, err := h.next.Call(ctx, name, args)
	if err != nil {
		fmt.Fprintf(h.s.err, "%s %s\n", paint(color, red, "←"), oneLine(err.Error()))
	} else {
		line, _, _ := strings.Cut(res.Text(), "\n")
		fmt.Fprintf(h.s.err, "%s %s\n", paint(color, dim, "←"), line)
	}
	return res, err
}

func compact(args json.RawMessage) string {
	if len(args) == 0 {
		return "{}"
	}
	return oneLine(string(args))
}
