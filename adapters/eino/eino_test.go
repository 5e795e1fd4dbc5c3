package eino_test

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

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	einoschema "github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/adapters/eino"
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
type turn func(msgs []*einoschema.Message) *einoschema.Message

// scripted is a chat model that answers from a script, and records what
// each turn was sent: the messages and the tools bound to the run.
type scripted struct {
	mu    sync.Mutex
	turns []turn
	sent  [][]*einoschema.Message
	tools [][]*einoschema.ToolInfo
}

func (m *scripted) Generate(ctx context.Context, in []*einoschema.Message, opts ...model.Option) (*einoschema.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := model.GetCommonOptions(&model.Options{}, opts...)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, in)
	m.tools = append(m.tools, o.Tools)
	i := len(m.sent) - 1
	if i >= len(m.turns) {
		return nil, fmt.Errorf("the script has %d turns; turn %d asked", len(m.turns), i+1)
	}
	return m.turns[i](in), nil
}

func (m *scripted) Stream(ctx context.Context, in []*einoschema.Message, opts ...model.Option) (*einoschema.StreamReader[*einoschema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return einoschema.StreamReaderFromArray([]*einoschema.Message{msg}), nil
}

func (m *scripted) WithTools([]*einoschema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// calls is a turn that calls tools, each given as name and arguments.
func calls(nameArgs ...string) turn {
	return func([]*einoschema.Message) *einoschema.Message {
		var tcs []einoschema.ToolCall
		for i := 0; i < len(nameArgs); i += 2 {
			tcs = append(tcs, einoschema.ToolCall{ID: fmt.Sprintf("call-%d", i/2), Type: "function",
				Function: einoschema.FunctionCall{Name: nameArgs[i], Arguments: nameArgs[i+1]}})
		}
		return einoschema.AssistantMessage("", tcs)
	}
}

func answer(text string) turn {
	return func([]*einoschema.Message) *einoschema.Message { return einoschema.AssistantMessage(text, nil) }
}

// run runs eino's ReAct agent on offer's tools, its system prompt first,
// and returns the answer.
func run(ctx context.Context, t *testing.T, m *scripted, offer *eino.Offer, prompt string) (*einoschema.Message, error) {
	t.Helper()
	agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: m, MaxStep: 12})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := react.WithTools(ctx, offer.Tools...)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []*einoschema.Message{einoschema.UserMessage(prompt)}
	if offer.System != "" {
		msgs = append([]*einoschema.Message{einoschema.SystemMessage(offer.System)}, msgs...)
	}
	return agent.Generate(ctx, msgs, opts...)
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

// toolMessages returns the tool messages of msgs, by the tool's name.
func toolMessages(msgs []*einoschema.Message) map[string]*einoschema.Message {
	out := map[string]*einoschema.Message{}
	for _, m := range msgs {
		if m.Role == einoschema.Tool {
			out[m.ToolName] = m
		}
	}
	return out
}

// text returns what a tool message says, in its content and its parts.
func text(m *einoschema.Message) string {
	if m == nil {
		return ""
	}
	s := m.Content
	for _, p := range m.UserInputMultiContent {
		if p.Type == einoschema.ChatMessagePartTypeText {
			s += p.Text
		}
	}
	return s
}

func names(infos []*einoschema.ToolInfo) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	return out
}

// The demo server through eino's ReAct agent: its tools listed with
// schemas lowered for OpenAI, its instructions and skills in the system
// prompt, three calls in one turn (a note added, a note that does not
// exist, a swatch), and what the model reads of each: text, the tool's
// failure (isError) in words, and the PNG as an image.
func TestReActAgentOnTheDemo(t *testing.T) {
	ctx := context.Background()
	p := demoServer(t, nil)
	offer, err := eino.Tools(ctx, p, &eino.Options{Vendor: schema.OpenAI})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{
		calls("add_note", `{"title":"milk","body":"buy milk"}`, "get_note", `{"id":99}`, "color_swatch", `{"color":"teal"}`),
		answer("done"),
	}}
	out, err := run(ctx, t, m, offer, "add a note and show me teal")
	if err != nil || out.Content != "done" {
		t.Fatalf("run: %v, %v", out, err)
	}

	offered := names(m.tools[0])
	for _, want := range []string{"add_note", "get_note", "note_stats", "color_swatch", "slow_count", "load_skill", "read_skill_file", "read_resource"} {
		if !slices.Contains(offered, want) {
			t.Errorf("%s not offered: %v", want, offered)
		}
	}
	if slices.Contains(offered, "board_refresh") {
		t.Error("an app-only tool was offered to the model")
	}
	if sys := m.sent[0][0]; sys.Role != einoschema.System || !strings.Contains(sys.Content, "## MCP server: notes") || !strings.Contains(sys.Content, "# Skills from MCP servers") {
		t.Errorf("the system prompt lacks the server's instructions or skills: %q", sys.Content)
	}
	// note_stats takes no arguments, and the server says so without
	// "properties", which OpenAI refuses ("object schema missing
	// properties"): lowered, it has them.
	for _, info := range m.tools[0] {
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(js)
		if info.Name == "note_stats" && !strings.Contains(string(b), `"properties":{}`) {
			t.Errorf("note_stats's schema for OpenAI: %s", b)
		}
	}

	results := toolMessages(m.sent[1])
	if got := text(results["add_note"]); !strings.Contains(got, "milk") {
		t.Errorf("add_note: %q", got)
	}
	if got := text(results["get_note"]); !strings.HasPrefix(got, "The tool ran and failed: ") {
		t.Errorf("get_note of a note that does not exist: %q", got)
	}
	swatch := results["color_swatch"]
	var images int
	for _, part := range swatch.UserInputMultiContent {
		if part.Type != einoschema.ChatMessagePartTypeImageURL {
			continue
		}
		images++
		png, err := base64.StdEncoding.DecodeString(*part.Image.Base64Data)
		if err != nil || part.Image.MIMEType != "image/png" || !strings.HasPrefix(string(png), "\x89PNG") {
			t.Errorf("the swatch: %s, %d bytes, %v", part.Image.MIMEType, len(png), err)
		}
	}
	if images != 1 || !strings.Contains(text(swatch), "swatch of #008080") {
		t.Errorf("color_swatch: %d images, text %q", images, text(swatch))
	}
}

// A model that reads only a message's Content gets each result as text.
func TestTextOnly(t *testing.T) {
	ctx := context.Background()
	p := demoServer(t, nil)
	offer, err := eino.Tools(ctx, p, &eino.Options{TextOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("color_swatch", `{"color":"teal"}`), answer("done")}}
	if _, err := run(ctx, t, m, offer, "teal"); err != nil {
		t.Fatal(err)
	}
	if got := toolMessages(m.sent[1])["color_swatch"]; got.Content != "64x64 swatch of #008080\n[image]" || got.UserInputMultiContent != nil {
		t.Errorf("text only: %q, %v", got.Content, got.UserInputMultiContent)
	}
}

// A policy's refusal is a result the model reads, and the run goes on: a
// tool the patterns deny is not even offered, and a call the user declines
// is answered with why.
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
	offer, err := eino.Tools(ctx, pol.Gate(set), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{calls("add_note", `{"title":"a","body":"b"}`), calls("list_notes", `{}`), answer("ok")}}
	if _, err := run(ctx, t, m, offer, "add"); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names(m.tools[0]), "delete_note") {
		t.Error("a denied tool was offered")
	}
	if got := text(toolMessages(m.sent[1])["add_note"]); !strings.HasPrefix(got, "The call was refused and did not run: ") || !strings.Contains(got, "declined") {
		t.Errorf("the refusal: %q", got)
	}
	if got := text(toolMessages(m.sent[2])["list_notes"]); !strings.Contains(got, "no notes yet") {
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
// unknown, and the run goes on. With Reconnect, the server is started
// again, and a read-only call caught by the death is sent again there.
func TestServerDiesMidCall(t *testing.T) {
	for _, reconnect := range []bool{false, true} {
		t.Run(fmt.Sprintf("reconnect=%v", reconnect), func(t *testing.T) {
			opts := &mcptool.Options{}
			if reconnect {
				opts.Reconnect = &mcptool.Reconnect{MaxAttempts: 2}
			}
			p, pid := connectCounting(t, opts)
			offer, err := eino.Tools(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			ctx := tool.WithProgress(context.Background(), func(tool.Progress) {
				once.Do(func() { syscall.Kill(pid, syscall.SIGKILL) })
			})
			m := &scripted{turns: []turn{calls("slow_count", `{"to":3,"delay_ms":300}`), answer("ok")}}
			out, err := run(ctx, t, m, offer, "count")
			if err != nil || out.Content != "ok" {
				t.Fatalf("the run ended: %v, %v", out, err)
			}
			got := text(toolMessages(m.sent[1])["slow_count"])
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

// Cancelling the run's context cancels the call in flight: the run ends
// with the context's error, and the server goes on serving.
func TestCancellation(t *testing.T) {
	p := demoServer(t, nil)
	offer, err := eino.Tools(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = tool.WithProgress(ctx, func(tool.Progress) { cancel() })
	m := &scripted{turns: []turn{calls("slow_count", `{"to":50,"delay_ms":200}`), answer("never")}}
	if _, err := run(ctx, t, m, offer, "count"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the run: %v; want it cancelled", err)
	}
	m = &scripted{turns: []turn{calls("slow_count", `{"to":1,"delay_ms":0}`), answer("ok")}}
	if _, err := run(context.Background(), t, m, offer, "count"); err != nil {
		t.Fatal(err)
	}
	if got := text(toolMessages(m.sent[1])["slow_count"]); got != "counted to 1" {
		t.Fatalf("after the cancellation: %q", got)
	}
}

// A server whose tools change (list_changed) shows the change in the next
// Offer, and a call to a tool gone since the model was told of it (by an
// Offer kept too long) is answered with the server's word, not an error
// that ends the run.
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
	old, err := eino.Tools(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(server, &mcp.Tool{Name: "second"}, say("two"))
	server.RemoveTools("first")
	<-changed
	for len(p.Tools()) != 1 || p.Tools()[0].Name != "second" {
		<-changed
	}
	offer, err := eino.Tools(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var infos []string
	for _, tl := range offer.Tools {
		info, _ := tl.Info(ctx)
		infos = append(infos, info.Name)
	}
	if !slices.Equal(infos, []string{"second"}) {
		t.Fatalf("after list_changed: %v", infos)
	}
	m := &scripted{turns: []turn{calls("first", `{}`), answer("ok")}}
	if _, err := run(ctx, t, m, old, "first"); err != nil {
		t.Fatal(err)
	}
	if got := text(toolMessages(m.sent[1])["first"]); !strings.Contains(got, `unknown tool "first"`) {
		t.Errorf("a call to a tool gone: %q", got)
	}
}

// The npm reference servers through the agent: server-everything's tools
// (an echo, an image), server-filesystem's failure on a path outside its
// directory (isError), each read by the model.
func TestReActAgentOnNpmServers(t *testing.T) {
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
	offer, err := eino.Tools(ctx, tool.Join(a, b), &eino.Options{Vendor: schema.OpenAI})
	if err != nil {
		t.Fatal(err)
	}
	m := &scripted{turns: []turn{
		calls("echo", `{"message":"hello"}`, "get-tiny-image", `{}`, "read_text_file", `{"path":"/etc/hostname"}`),
		answer("ok"),
	}}
	if _, err := run(ctx, t, m, offer, "go"); err != nil {
		t.Fatal(err)
	}
	results := toolMessages(m.sent[1])
	if got := text(results["echo"]); !strings.Contains(got, "hello") {
		t.Errorf("echo: %q", got)
	}
	var images int
	for _, part := range results["get-tiny-image"].UserInputMultiContent {
		if part.Type == einoschema.ChatMessagePartTypeImageURL && part.Image.MIMEType == "image/png" {
			images++
		}
	}
	if images != 1 {
		t.Errorf("get-tiny-image: %d images", images)
	}
	if got := text(results["read_text_file"]); !strings.HasPrefix(got, "The tool ran and failed: ") || !strings.Contains(got, "outside allowed directories") {
		t.Errorf("a path outside the server's directory: %q", got)
	}
}
