package genkit_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	mcpgenkit "github.com/mcpbridge/mcpbridge/adapters/genkit"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The test binary is also the demo server: started again with
// demo.ChildEnv set, it serves the demo over stdio, a real subprocess
// reached through the public mcptool.FromCommand.
func TestMain(m *testing.M) {
	demo.ServeIfChild()
	goleak.VerifyTestMain(m)
}

// A turn is what the scripted model answers, given what it was sent.
type turn func(req *ai.ModelRequest) *ai.Message

// scripted is a Genkit model that answers from a script, and records each
// request it was sent.
type scripted struct {
	mu    sync.Mutex
	turns []turn
	sent  []*ai.ModelRequest
}

// define makes m a model of a new Genkit instance, which lives as long as
// the test.
func (m *scripted) define(t *testing.T) (*genkit.Genkit, ai.Model) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends the signal watch genkit.Init starts
	g := genkit.Init(ctx)
	model := genkit.DefineModel(g, "test/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true, Media: true}},
		func(ctx context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			m.sent = append(m.sent, req)
			i := len(m.sent) - 1
			if i >= len(m.turns) {
				return nil, fmt.Errorf("the script has %d turns; turn %d asked", len(m.turns), i+1)
			}
			return &ai.ModelResponse{Message: m.turns[i](req), Request: req}, nil
		})
	return g, model
}

// calls is a turn that calls tools, each given as name and arguments.
func calls(nameArgs ...string) turn {
	return func(*ai.ModelRequest) *ai.Message {
		msg := &ai.Message{Role: ai.RoleModel}
		for i := 0; i < len(nameArgs); i += 2 {
			var input any
			if err := json.Unmarshal([]byte(nameArgs[i+1]), &input); err != nil {
				panic(err)
			}
			msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: nameArgs[i], Input: input, Ref: fmt.Sprintf("call-%d", i/2)}))
		}
		return msg
	}
}

func answer(text string) turn {
	return func(*ai.ModelRequest) *ai.Message { return ai.NewModelTextMessage(text) }
}

// generate runs Genkit's Generate with m on offer's tools, its system
// prompt, and prompt.
func generate(ctx context.Context, t *testing.T, m *scripted, offer *mcpgenkit.Offer, prompt string) (*ai.ModelResponse, error) {
	t.Helper()
	g, model := m.define(t)
	opts := []ai.GenerateOption{ai.WithModel(model), ai.WithTools(offer.Tools...), ai.WithPrompt(prompt), ai.WithMaxTurns(10)}
	if offer.System != "" {
		opts = append(opts, ai.WithSystem(offer.System))
	}
	return genkit.Generate(ctx, g, opts...)
}

// demoServer starts the demo as a subprocess, with opts.
func demoServer(t *testing.T, opts *mcptool.Options) *mcptool.Provider {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcptool.Options{}
	}
	opts.Name = "notes"
	p := mcptool.FromCommand(mcptool.Command{Path: exe, Env: map[string]string{demo.ChildEnv: "stdio"}}, opts)
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// responses returns the tool responses of req, by the tool's name.
func responses(req *ai.ModelRequest) map[string]*ai.ToolResponse {
	out := map[string]*ai.ToolResponse{}
	for _, msg := range req.Messages {
		for _, p := range msg.Content {
			if p.IsToolResponse() {
				out[p.ToolResponse.Name] = p.ToolResponse
			}
		}
	}
	return out
}

// output returns what a tool response says as text.
func output(r *ai.ToolResponse) string {
	if r == nil {
		return ""
	}
	s, _ := r.Output.(string)
	return s
}

func names(req *ai.ModelRequest) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	return out
}

// The demo server through Genkit's Generate: its tools listed with schemas
// lowered for Gemini, its instructions and skills in the system prompt,
// three calls in one turn (a note added, a note that does not exist, a
// swatch), and what the model reads of each: text, the tool's failure
// (isError) in words, and the PNG as a media part.
func TestGenerateOnTheDemo(t *testing.T) {
	ctx := context.Background()
	p := demoServer(t, nil)
	offer, err := mcpgenkit.Tools(ctx, p, &mcpgenkit.Options{Vendor: schema.Gemini})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{
		calls("add_note", `{"title":"milk","body":"buy milk"}`, "get_note", `{"id":99}`, "color_swatch", `{"color":"teal"}`),
		answer("done"),
	}}
	res, err := generate(ctx, t, m, offer, "add a note and show me teal")
	if err != nil || res.Text() != "done" {
		t.Fatalf("generate: %v, %v", res, err)
	}
	offered := names(m.sent[0])
	for _, want := range []string{"add_note", "get_note", "note_stats", "color_swatch", "slow_count", "load_skill", "read_skill_file", "read_resource"} {
		if !slices.Contains(offered, want) {
			t.Errorf("%s not offered: %v", want, offered)
		}
	}
	var system string
	for _, msg := range m.sent[0].Messages {
		if msg.Role == ai.RoleSystem {
			system += msg.Text()
		}
	}
	if !strings.Contains(system, "## MCP server: notes") || !strings.Contains(system, "# Skills from MCP servers") {
		t.Errorf("the system prompt lacks the server's instructions or skills: %q", system)
	}
	got := responses(m.sent[1])
	if out := output(got["add_note"]); !strings.Contains(out, "milk") {
		t.Errorf("add_note: %q", out)
	}
	if out := output(got["get_note"]); !strings.HasPrefix(out, "The tool ran and failed: ") {
		t.Errorf("get_note of a note that does not exist: %q", out)
	}
	swatch := got["color_swatch"]
	if swatch == nil || len(swatch.Content) != 1 || !swatch.Content[0].IsImage() || swatch.Content[0].ContentType != "image/png" {
		t.Fatalf("color_swatch: %+v", swatch)
	}
	png, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(swatch.Content[0].Text, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("the swatch: %d bytes, %v", len(png), err)
	}
}

// A model that takes no media gets each result as text.
func TestTextOnly(t *testing.T) {
	ctx := context.Background()
	p := demoServer(t, nil)
	offer, err := mcpgenkit.Tools(ctx, p, &mcpgenkit.Options{TextOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("color_swatch", `{"color":"teal"}`), answer("done")}}
	if _, err := generate(ctx, t, m, offer, "teal"); err != nil {
		t.Fatal(err)
	}
	if got := responses(m.sent[1])["color_swatch"]; output(got) != "64x64 swatch of #008080\n[image]" || got.Content != nil {
		t.Errorf("text only: %+v", got)
	}
}

// A policy's refusal is a response the model reads, and Generate goes on:
// a tool the patterns deny is not even offered, and a call the user
// declines is answered with why.
func TestPolicyRefusal(t *testing.T) {
	ctx := context.Background()
	p := demoServer(t, nil)
	pol, err := policy.New(policy.Config{
		Deny: []string{"delete_*"},
		Approver: func(_ context.Context, c policy.Call) (policy.Decision, error) {
			if c.Name == "add_note" {
				return policy.Refuse("not today"), nil
			}
			return policy.Approve(), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := p.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	offer, err := mcpgenkit.Tools(ctx, pol.Gate(set), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("add_note", `{"title":"a","body":"b"}`), calls("list_notes", `{}`), answer("ok")}}
	if _, err := generate(ctx, t, m, offer, "add"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(m.sent[0]), "delete_note") {
		t.Error("a denied tool was offered")
	}
	if got := output(responses(m.sent[1])["add_note"]); !strings.HasPrefix(got, "The call was refused and did not run: ") || !strings.Contains(got, "declined") {
		t.Errorf("the refusal: %q", got)
	}
	if got := output(responses(m.sent[2])["list_notes"]); !strings.Contains(got, "no notes yet") {
		t.Errorf("after the refusal: %q", got)
	}
}

// connectCounting starts the demo as demoServer does, and returns its pid
// too: the child that Connect added.
func connectCounting(t *testing.T, opts *mcptool.Options) (*mcptool.Provider, int) {
	t.Helper()
	before := proctest.Children(os.Getpid())
	p := demoServer(t, opts)
	for _, c := range proctest.Children(os.Getpid()) {
		if !slices.Contains(before, c) {
			return p, c
		}
	}
	t.Fatal("no new child process")
	return nil, 0
}

// A server that dies during a call: the model reads that the outcome is
// unknown, and Generate goes on. With Reconnect, the server is started
// again, and a read-only call caught by the death is sent again there.
func TestServerDiesMidCall(t *testing.T) {
	for _, reconnect := range []bool{false, true} {
		t.Run(fmt.Sprintf("reconnect=%v", reconnect), func(t *testing.T) {
			opts := &mcptool.Options{}
			if reconnect {
				opts.Reconnect = &mcptool.Reconnect{MaxAttempts: 2}
			}
			p, pid := connectCounting(t, opts)
			offer, err := mcpgenkit.Tools(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			ctx := tool.WithProgress(context.Background(), func(tool.Progress) {
				once.Do(func() { syscall.Kill(pid, syscall.SIGKILL) })
			})
			m := &scripted{turns: []turn{calls("slow_count", `{"to":3,"delay_ms":300}`), answer("ok")}}
			res, err := generate(ctx, t, m, offer, "count")
			if err != nil || res.Text() != "ok" {
				t.Fatalf("Generate ended: %v, %v", res, err)
			}
			got := output(responses(m.sent[1])["slow_count"])
			want := "whether the tool ran is unknown"
			if reconnect {
				want = "counted to 3"
			}
			if !strings.Contains(got, want) {
				t.Fatalf("what the model read: %q; want %q", got, want)
			}
		})
	}
}

// Cancelling Generate's context cancels the call in flight: Generate ends
// with the context's error, and the server goes on serving.
func TestCancellation(t *testing.T) {
	p := demoServer(t, nil)
	offer, err := mcpgenkit.Tools(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = tool.WithProgress(ctx, func(tool.Progress) { cancel() })
	m := &scripted{turns: []turn{calls("slow_count", `{"to":50,"delay_ms":200}`), answer("never")}}
	// Genkit flattens a tool's error into its own (%v), so the context's
	// error shows only in the text.
	if _, err := generate(ctx, t, m, offer, "count"); !errors.Is(ctx.Err(), context.Canceled) || err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Generate: %v; want it cancelled", err)
	}
	m = &scripted{turns: []turn{calls("slow_count", `{"to":1,"delay_ms":0}`), answer("ok")}}
	if _, err := generate(context.Background(), t, m, offer, "count"); err != nil {
		t.Fatal(err)
	}
	if got := output(responses(m.sent[1])["slow_count"]); got != "counted to 1" {
		t.Fatalf("after the cancellation: %q", got)
	}
}

// A server whose tools change (list_changed) shows the change in the next
// Offer.
func TestRefresh(t *testing.T) {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "changing", Version: "1"}, nil)
	say := func(word string) mcp.ToolHandlerFor[struct{}, any] {
		return func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: word}}}, nil, nil
		}
	}
	mcp.AddTool(server, &mcp.Tool{Name: "first"}, say("one"))
	changed := make(chan struct{}, 4)
	p := mcptool.FromServer(server, &mcptool.Options{Name: "changing", OnEvent: func(e mcptool.Event) {
		if e.ToolsChanged {
			changed <- struct{}{}
		}
	}})
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	mcp.AddTool(server, &mcp.Tool{Name: "second"}, say("two"))
	server.RemoveTools("first")
	<-changed
	for len(p.Tools()) != 1 || p.Tools()[0].Name != "second" {
		<-changed
	}
	offer, err := mcpgenkit.Tools(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("second", `{}`), answer("ok")}}
	if _, err := generate(ctx, t, m, offer, "second"); err != nil {
		t.Fatal(err)
	}
	if got := names(m.sent[0]); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("after list_changed: %v", got)
	}
	if got := output(responses(m.sent[1])["second"]); got != "two" {
		t.Errorf("second: %q", got)
	}
}

// The npm reference servers through Generate: server-everything's tools
// (an echo, an image), server-filesystem's failure on a path outside its
// directory (isError), each read by the model.
func TestGenerateOnNpmServers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	everything := mcptool.FromCommand(mcptool.Command{Path: npmtest.Bin(t, "mcp-server-everything"), Args: []string{"stdio"}}, &mcptool.Options{Name: "everything"})
	files := mcptool.FromCommand(mcptool.Command{Path: npmtest.Bin(t, "mcp-server-filesystem"), Args: []string{dir}}, &mcptool.Options{Name: "files"})
	for _, p := range []*mcptool.Provider{everything, files} {
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		defer p.Close()
	}
	a, err := everything.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := files.Offer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	offer, err := mcpgenkit.Tools(ctx, tool.Join(a, b), &mcpgenkit.Options{Vendor: schema.Gemini})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{
		calls("echo", `{"message":"hello"}`, "get-tiny-image", `{}`, "read_text_file", `{"path":"/etc/hostname"}`),
		answer("ok"),
	}}
	if _, err := generate(ctx, t, m, offer, "go"); err != nil {
		t.Fatal(err)
	}
	got := responses(m.sent[1])
	if out := output(got["echo"]); !strings.Contains(out, "hello") {
		t.Errorf("echo: %q", out)
	}
	if img := got["get-tiny-image"]; img == nil || len(img.Content) != 1 || img.Content[0].ContentType != "image/png" {
		t.Errorf("get-tiny-image: %+v", img)
	}
	if out := output(got["read_text_file"]); !strings.HasPrefix(out, "The tool ran and failed: ") || !strings.Contains(out, "outside allowed directories") {
		t.Errorf("a path outside the server's directory: %q", out)
	}
}
