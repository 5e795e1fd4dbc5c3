package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Web is mcpbridge's web command: chat's model and servers behind a page in
// the browser, the tools' MCP Apps rendered with package apphost. Run it
// with [cli.Program], which runs it given its name first.
var Web = &cli.Command{
	Name:    "web",
	Usage:   "web [--http ADDR] [--model NAME] [--code] [target]",
	Summary: cli.WebSummary,
	Examples: `  OPENAI_API_KEY=sk-... mcpbridge web
  mcpbridge web --config mcp.json --http 127.0.0.1:8080
  mcpbridge web -- npx -y @modelcontextprotocol/server-basic-vanillajs --stdio
  mcpbridge web --http 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem --allow-host box.example

It prints the page's address, with a secret made for the run after #: only
a page opened at that address drives the chat and the servers, not another
page of the same machine. The page answers to loopback names alone unless
--allow-host names it otherwise. An address that is not loopback is
refused unless the page is served over HTTPS (--tls-cert, --tls-key, as
serve takes them, renewals followed) and named with --allow-host: in clear
the secret and all the page shows would cross the network.

The chat streams the model's answer as it is written and each tool call
(its arguments, progress and result), and renders the app of a tool that
has one. Each page (tab) has a conversation of its own, shown again when
it is reloaded; New conversation starts another. What an app says
(ui/message) starts no turn: it waits by the input, marked as the app's,
until you send it to the model (which is told the app wrote it, not you)
or discard it. The page at /app?tool=NAME&args=JSON (with the same
#secret) renders one tool's app, the host calling the tool, for an app's
developer: it needs no model.

The model is chat's: any OpenAI-compatible server when OPENAI_API_KEY or
OPENAI_BASE_URL is set, else Anthropic when ANTHROPIC_API_KEY is set. With
none, the page opens and says what to set; /app works.

What a server asks during a turn is asked on the page, one question at a
time: a form to fill in (checked before it is sent), a page to open (its
whole address and host shown, opened only if you say so), with --sampling
each request for the model to approve; answer, decline or cancel. Stop
cancels the turn, its tool calls cancelled on their servers, and any
question with it. With --no-input each question is declined, said on
stderr, as one asked while no turn runs (an app's own call) is, and each
sampling request is shown there, as chat shows it.

With --code the model gets run_code and describe_tools in place of the
catalog, as chat --code does.

An app runs in a sandboxed frame of an origin of its own, under the
Content-Security-Policy its server declared, and calls only its own
server's tools that apps may call (see SECURITY.md).`,
	NoArgs: true,
	Setup: func(fs *flag.FlagSet) cli.RunFunc {
		t := cli.AddAppTarget(fs)
		page := cli.AddPageFlags(fs, "127.0.0.1:0")
		modelName, code := addModelFlags(fs, t)
		// The page asks, not the terminal.
		fs.Lookup("no-input").Usage = "never ask on the page: decline what a server asks the user, with a line on stderr saying what it asked"
		fs.Lookup("sampling").Usage = "let the servers ask the model for completions (sampling), each request approved on the page"
		return func(ctx context.Context, _, serverCmd []string, s *cli.Streams) error {
			w := &webChat{modelName: *modelName, errw: s.Err}
			t.AskIn(w.elicit, w.sampling) // on the page, in the turn that runs
			model, err := ChooseModel(ctx, *modelName)
			switch {
			case err != nil && modelConfigured():
				return err
			case err != nil:
				w.noModel = err.Error() // the page says what to set; /app works
			}
			// Before the servers start: an address refused or in use, or
			// a certificate that does not load, is said at once.
			ln, err := page.Listen(slog.New(slog.NewTextHandler(s.Err, nil)))
			if err != nil {
				return err
			}
			defer ln.Close()
			ts, err := startFor(ctx, t, model, serverCmd, s)
			if err != nil {
				return err
			}
			defer t.Close(ts)
			w.ts = ts
			if model != nil {
				if w.agent, err = webAgent(t, ts, model, w, *code); err != nil {
					return err
				}
			}
			return serveWeb(ctx, ln, w, s)
		}
	},
}

// modelConfigured reports whether the environment names a model, as
// [ChooseModel] reads it: one that then cannot be made is an error.
func modelConfigured() bool {
	return os.Getenv("OPENAI_BASE_URL") != "" || os.Getenv("OPENAI_API_KEY") != "" || os.Getenv("ANTHROPIC_API_KEY") != ""
}

// webAgent is the agent behind the page: chat's, its tool calls shown on the
// page as they start, progress and end.
func webAgent(t *cli.Target, ts *catalog.Toolset, model llm.Model, w *webChat, code bool) (*agent.Agent, error) {
	return agent.New(withCode(agent.Config{
		Model:      streamedModel{model, w},
		System:     chatSystem,
		Tools:      []tool.Source{progressSource{ts, w}},
		OnToolCall: w.started,
		Logger:     t.Logger(),
		Vendor:     t.Vendor, // the agent's own tools, as the catalog
	}, code))
}

// streamedModel is the agent's model with the text of each of its answers
// streamed into the page as it is written (llm.Request.OnText); the turn's
// answer event then holds the whole, which the page shows in its place.
type streamedModel struct {
	llm.Model
	w *webChat
}

func (m streamedModel) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if t := m.w.current(); t != nil {
		req.OnText = func(delta string) { t.emit(webEvent{Type: "text", Text: untrusted.Text(delta)}) }
	}
	return m.Model.Generate(ctx, req)
}

// Name and Vendor pass on what the model says of itself, which the agent's
// chat spans carry.
func (m streamedModel) Name() string {
	n, _ := m.Model.(interface{ Name() string })
	if n == nil {
		return ""
	}
	return n.Name()
}

func (m streamedModel) Vendor() string {
	v, _ := m.Model.(interface{ Vendor() string })
	if v == nil {
		return ""
	}
	return v.Vendor()
}

// serveWeb serves the page of w on ln until ctx ends (Ctrl-C), having
// printed its address with the run's secret.
func serveWeb(ctx context.Context, ln *cli.PageListener, w *webChat, s *cli.Streams) error {
	var b [16]byte
	rand.Read(b[:])
	w.secret = hex.EncodeToString(b[:])
	srv := &http.Server{Handler: w.handler(ln.Hosts), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }} // Ctrl-C ends the turns
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(s.Out, "%s/#%s\n", ln.URL, w.secret)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Ctrl-C: the turns in flight end with the command's context.
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(stop)
	<-served
	return nil
}
