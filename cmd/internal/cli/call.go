package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/near"
	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

var callCmd = &Command{
	Name:    "call",
	takes:   2,
	Usage:   "call TOOL [ARGS_JSON | -] [--json | --raw] [--out DIR] [target]",
	Summary: "Call a tool, its arguments checked first, and print what the model would read.",
	Examples: `  mcpbridge call add_note '{"title":"milk","body":"buy milk"}'
  echo '{"message":"hi"}' | mcpbridge call echo - -- npx -y @modelcontextprotocol/server-everything
  mcpbridge call color_swatch '{"color":"teal"}' --out /tmp
  mcpbridge call note_stats --json
  mcpbridge call get_note '{"id":1}' --raw
  mcpbridge call slow_count '{"to":10,"delay_ms":300}'
  mcpbridge call trigger-elicitation-request -- npx -y @modelcontextprotocol/server-everything
  OPENAI_API_KEY=sk-... mcpbridge call trigger-sampling-request '{"prompt":"a haiku"}' --sampling -- npx -y @modelcontextprotocol/server-everything

A result of several parts, which the model reads as a JSON array of their
texts, is shown a part at a time on a terminal (a pipe gets the array).

A call the server reports progress on shows it on stderr as it runs: a bar
with the server's message on a terminal, else a line at most every second.
A call the server runs as a task shows a line on stderr at each change of
its status ("task ID: working: ..."); Ctrl-C cancels the task on the
server.

A tool that is an MCP App has its interface saved in --out's directory,
its path printed (without --out, a line says it has one): the server's HTML, with the Content-Security-Policy its
server declared for it put first in it, so a browser that opens the page
lets it reach nothing else. It is the server's page, scripts included: a
copy to look at, not a host's sandboxed frame.

What the server asks the user is asked on the terminal (declined, with a
line, without one or with --no-input); with --sampling it may ask the model
(chat's: --model and the environment), each request shown.

With --json, the result as mcpbridge converted it, one object:
  {"parts": [{"type": "text", "text": "..."},
             {"type": "image", "mimeType": "image/png", "data": "<base64>"}],
   "structuredContent": {...},   the tool's structured result; omitted if none
   "isError": false,
   "app": {"uri": "ui://...", "path": "..."}}   the tool's interface, "path" where --out
                                                saved it; omitted if none
  A tool that failed gives "isError": true and one text part, what the model
  would read. --raw prints the MCP result as the server sent it instead.`,
	inChat: func(args []string) bool { return hasFlag(args, "sampling") }, // the model SDKs are there
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := addAppTarget(fs)
		t.AddVendor(fs, schema.Anthropic, "the `VENDOR` whose rules the tool names follow, as tools --vendor lists them: openai, anthropic or gemini")
		raw := fs.Bool("raw", false, "print the MCP result as JSON, as the server sent it")
		asJSON := fs.Bool("json", false, "print the converted result as JSON (shape below)")
		var out dirFlag
		fs.Var(&out, "out", "save images and the interface of an app in `DIR` (default: images in the system's temporary directory, apps not saved)")
		t.AddInput(fs)
		t.AddSampling(fs)
		modelName := fs.String("model", "", "with --sampling, the model `NAME` (default: chat's)")
		return func(ctx context.Context, pos, serverCmd []string, s *Streams) error {
			if len(pos) == 0 || len(pos) > 2 {
				return Usagef("call takes a tool name and, optionally, its arguments as JSON (or - for stdin)")
			}
			switch {
			case *raw && *asJSON:
				return Usagef("give --json (the converted result) or --raw (the server's), not both")
			case *raw && out != "":
				return Usagef("--out goes with a result mcpbridge converts: --raw prints the server's JSON and saves nothing")
			case *modelName != "" && !t.Sampling():
				return Usagef("--model goes with --sampling: it names the model the servers may ask")
			}
			if err := t.chooseModel(ctx, *modelName); err != nil {
				return err
			}
			args := json.RawMessage("{}")
			if len(pos) == 2 {
				var err error
				if args, err = callArgs(pos[1], s.In); err != nil {
					return err
				}
			}
			ts, _, err := t.Start(ctx, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			snap := ts.Snapshot(ctx)
			name, err := findTool(snap, pos[0], t.Sampling())
			if err != nil {
				if d, out := leftOut(ts.Quarantined(), pos[0]); out {
					return &exitError{code: exitFailed, err: fmt.Errorf("left out: %s", d)}
				}
				return err
			}
			bar := newProgressBar(s.Err)
			ctx = mcpclient.WithTaskStatus(tool.WithProgress(ctx, bar.report), bar.status)
			if *raw {
				return didNotRun(name, callRaw(ctx, snap, name, args, s, bar))
			}
			res, err := snap.Call(ctx, name, args)
			bar.stop()
			var failed *tool.FailedError
			switch {
			case errors.As(err, new(*tool.RefusedError)):
				return didNotRun(name, err)
			case *asJSON && errors.As(err, &failed):
				if werr := WriteJSON(s.Out, callResult{Parts: []resultPart{{Type: "text", Text: failed.Message}}, IsError: true}); werr != nil {
					return werr
				}
				return err
			case err != nil:
				return err
			}
			app := saveApp(ctx, ts, snap, name, string(out), s.Err)
			if *asJSON {
				c := converted(res)
				c.App = app
				return WriteJSON(s.Out, c)
			}
			if err := printResult(s.Out, res, name, string(out)); err != nil {
				return err
			}
			if app != nil {
				fmt.Fprintln(s.Out, app.line())
			}
			return nil
		}
	},
}

// findTool accepts a final name, an alias, or a tool's own name when only
// one server has it. sampling says whether the servers were told they may
// sample: without it, a name not found may be a tool offered only then.
func findTool(snap *catalog.Snapshot, name string, sampling bool) (string, error) {
	if _, _, ok := snap.Lookup(name); ok {
		return name, nil
	}
	var matches, all []string
	for _, d := range snap.Definitions() {
		all = append(all, d.Name)
		if _, own, ok := snap.Lookup(d.Name); ok && own == name {
			matches = append(matches, d.Name)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		if near := near.Suggest(name, all); near != "" {
			return "", Usagef("no tool %q; did you mean %q?", name, near)
		}
		if !sampling {
			return "", Usagef("no tool %q; run mcpbridge tools to see them (a server may offer some tools only to a client that allows sampling: mcpbridge tools --sampling lists them)", name)
		}
		return "", Usagef("no tool %q; run mcpbridge tools --sampling to see them", name)
	}
	return "", Usagef("%q is offered by several servers: use one of %s", name, strings.Join(matches, ", "))
}

// leftOut finds, among diags, why the tool a user named by its own name is
// out of the catalog.
func leftOut(diags []catalog.Quarantine, name string) (catalog.Quarantine, bool) {
	for _, d := range diags {
		if d.Tool == name {
			return d, true
		}
	}
	return catalog.Quarantine{}, false
}

// A callResult is a tool's result as call --json prints it: a stable
// shape, documented in call's help.
type callResult struct {
	Parts      []resultPart    `json:"parts"`
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	IsError    bool            `json:"isError"`
	App        *savedApp       `json:"app,omitempty"`
}

type resultPart struct {
	Type     string `json:"type"` // "text" or "image"
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty"` // base64 in JSON
}

// converted is res in the shape of call --json.
func converted(res tool.Reply) callResult {
	out := callResult{Parts: []resultPart{}, Structured: res.Structured}
	for _, p := range res.Parts {
		switch p := p.(type) {
		case tool.TextPart:
			out.Parts = append(out.Parts, resultPart{Type: "text", Text: p.Text})
		case tool.ImagePart:
			out.Parts = append(out.Parts, resultPart{Type: "image", MIMEType: p.MIMEType, Data: p.Data})
		}
	}
	return out
}

// printResult prints a result as a model reads it; images are saved to
// files whose paths are printed.
func printResult(w io.Writer, res tool.Reply, name, dir string) error {
	n := 0
	for _, p := range res.Parts {
		switch p := p.(type) {
		case tool.TextPart:
			for _, text := range shownParts(w, p.Text) {
				fmt.Fprintln(w, Content(w, text))
			}
		case tool.ImagePart:
			n++
			path, err := saveImage(dir, name, n, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "[image %s, %s, saved to %s]\n", untrusted.Line(p.MIMEType), plural.Count(len(p.Data), "byte", "bytes"), path)
		}
	}
	return nil
}

// shownParts is text as a person reads it on w: on a terminal, a JSON
// array of two strings or more, which is how the model reads a result of
// several parts without images ([mcptool.ToReply]), a part at a time
// (a tool's one text that is such an array is shown so too); elsewhere,
// text as the model reads it.
func shownParts(w io.Writer, text string) []string {
	var parts []string
	if !IsTerminal(w) || !strings.HasPrefix(text, `["`) || json.Unmarshal([]byte(text), &parts) != nil || len(parts) < 2 {
		return []string{text}
	}
	return parts
}

func saveImage(dir, name string, n int, img tool.ImagePart) (string, error) {
	ext := "." + safeFile(untrusted.Line(strings.TrimPrefix(img.MIMEType, "image/")))
	return saveFile(dir, fmt.Sprintf("mcpbridge-%s-%d-*%s", safeFile(name), n, ext), img.Data)
}

// saveFile writes data to a new file in dir (the system's temporary
// directory if ""), named by pattern as os.CreateTemp names files, and
// returns its path.
func saveFile(dir, pattern string, data []byte) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

func safeFile(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}

// callRaw calls the tool, checked as any call is, and prints the MCP result
// as the server sent it.
func callRaw(ctx context.Context, snap *catalog.Snapshot, name string, args json.RawMessage, s *Streams, bar *progressBar) error {
	res, err := snap.CallResult(ctx, name, args)
	bar.stop()
	if res != nil {
		if err := WriteJSON(s.Out, res); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return &exitError{code: exitFailed, err: fmt.Errorf("tool %q failed (isError)", name)}
	}
	return nil
}

// didNotRun says of a call refused before it was sent that the tool did
// not run, with the usage status (the arguments were the caller's); other
// errors pass as they are.
func didNotRun(name string, err error) error {
	refused, ok := errors.AsType[*tool.RefusedError](err)
	if !ok {
		return err
	}
	return &exitError{code: exitUsage, err: fmt.Errorf("tool %q did not run: refused before sending: %s", name, refused.Message)}
}
