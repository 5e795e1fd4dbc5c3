package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/tool"
)

func serving(served string, answer tool.Reply) tool.Handler {
	return tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		if name != served {
			return tool.Reply{}, &tool.UnservedError{Name: name}
		}
		return answer, nil
	})
}

// saysUnknown answers any name but its own with a result whose text reads
// like the legacy way of declining, {"error": "Unknown tool: ..."}.
func saysUnknown(served string) tool.Handler {
	return tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		if name != served {
			return tool.Text(`{"error": "Unknown tool: ` + name + `"}`), nil
		}
		return tool.Text("legacy " + name), nil
	})
}

func TestComposeFirstMatchWins(t *testing.T) {
	h := tool.Compose(serving("a", tool.Text("first")), serving("a", tool.Text("second")), serving("b", tool.Text("b")))
	ctx := context.Background()
	if res, err := h.Call(ctx, "a", nil); err != nil || res.Text() != "first" {
		t.Fatalf("a: %q, %v; want first", res.Text(), err)
	}
	if res, err := h.Call(ctx, "b", nil); err != nil || res.Text() != "b" {
		t.Fatalf("b: %q, %v", res.Text(), err)
	}
}

// A result is an answer whatever its text says: one that reads like the
// legacy envelope {"error": "Unknown tool: ..."} (a tool may legitimately
// say so) is the composition's, not passed to the next handler.
func TestComposeUnknownToolTextIsAnAnswer(t *testing.T) {
	h := tool.Compose(saysUnknown("x"), serving("y", tool.Text("from y")))
	res, err := h.Call(context.Background(), "y", nil)
	if err != nil || res.Text() != `{"error": "Unknown tool: y"}` {
		t.Fatalf("y: %q, %v; want the first handler's result as it is", res.Text(), err)
	}
}

func TestComposeLastAnswerIsTheComposition(t *testing.T) {
	ctx := context.Background()
	// The last handler's decline is returned as it is.
	h := tool.Compose(serving("a", tool.Text("a")), saysUnknown("b"))
	res, err := h.Call(ctx, "zzz", nil)
	if err != nil || res.Text() != `{"error": "Unknown tool: zzz"}` {
		t.Fatalf("got %q, %v; want the last handler's result", res.Text(), err)
	}
	h = tool.Compose(serving("b", tool.Text("b")), serving("a", tool.Text("a")))
	_, err = h.Call(ctx, "zzz", nil)
	var u *tool.UnservedError
	if !errors.As(err, &u) || u.Name != "zzz" || !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("got %v; want UnservedError for zzz", err)
	}
}

func TestComposeOtherErrorsStop(t *testing.T) {
	boom := errors.New("boom")
	failing := tool.HandlerFunc(func(context.Context, string, json.RawMessage) (tool.Reply, error) {
		return tool.Reply{}, boom
	})
	called := false
	after := tool.HandlerFunc(func(context.Context, string, json.RawMessage) (tool.Reply, error) {
		called = true
		return tool.Text("after"), nil
	})
	_, err := tool.Compose(failing, after).Call(context.Background(), "a", nil)
	if !errors.Is(err, boom) || called {
		t.Fatalf("err=%v called=%v; want boom and no further handler", err, called)
	}
	// A wrapped unserved error still passes on.
	wrapped := tool.HandlerFunc(func(_ context.Context, name string, _ json.RawMessage) (tool.Reply, error) {
		return tool.Reply{}, errors.Join(errors.New("context"), &tool.UnservedError{Name: name})
	})
	if res, err := tool.Compose(wrapped, after).Call(context.Background(), "a", nil); err != nil || res.Text() != "after" {
		t.Fatalf("wrapped unserved: %q, %v", res.Text(), err)
	}
}

func TestComposeEmpty(t *testing.T) {
	_, err := tool.Compose().Call(context.Background(), "a", nil)
	if !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("got %v; want unserved", err)
	}
}

func TestReplyText(t *testing.T) {
	r := tool.Reply{Parts: []tool.Part{
		tool.TextPart{Text: "before"},
		tool.ImagePart{MIMEType: "image/png", Data: []byte{1}},
		tool.TextPart{Text: "after"},
	}}
	if got, want := r.Text(), "before\n[image]\nafter"; got != want {
		t.Fatalf("Text() = %q, want %q", got, want)
	}
	if !r.HasImages() || tool.Text("x").HasImages() {
		t.Fatal("HasImages wrong")
	}
}

func TestAnnotations(t *testing.T) {
	f := false
	var none *tool.Annotations
	if !none.Destructive() || none.ReadOnly() || none.Idempotent() || !none.OpenWorld() {
		t.Error("nil annotations must read as the specification's defaults")
	}
	ro := &tool.Annotations{ReadOnlyHint: true}
	if ro.Destructive() || !ro.ReadOnly() || !ro.Idempotent() {
		t.Error("read-only")
	}
	safe := &tool.Annotations{DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f}
	if safe.Destructive() || !safe.Idempotent() || safe.OpenWorld() {
		t.Error("explicit hints")
	}
}

type addArgs struct {
	A int    `json:"a" jsonschema:"the first addend"`
	B int    `json:"b"`
	N string `json:"note,omitempty"`
}

type sum struct {
	Sum int `json:"sum"`
}

func TestFunc(t *testing.T) {
	add, err := tool.Func("add", "Adds two numbers.", func(_ context.Context, in addArgs) (sum, error) {
		return sum{in.A + in.B}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	def := add.Definitions[0]
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Properties) != 3 || strings.Join(schema.Required, ",") != "a,b" {
		t.Fatalf("input schema %s", def.InputSchema)
	}
	if !strings.Contains(string(schema.Properties["a"]), "the first addend") {
		t.Errorf("description tag lost: %s", schema.Properties["a"])
	}
	if len(def.OutputSchema) == 0 {
		t.Error("no output schema for a struct result")
	}
	ctx := context.Background()
	res, err := add.Handler.Call(ctx, "add", json.RawMessage(`{"a": 2, "b": 3}`))
	if err != nil || res.Text() != `{"sum":5}` || string(res.Structured) != `{"sum":5}` {
		t.Fatalf("call: %q %s %v", res.Text(), res.Structured, err)
	}
	// Arguments stringified whole are unwrapped once, where they leave the
	// model (modelio.Args, in the llm packages); a handler checks, it does not
	// repair them again.
	if _, err = add.Handler.Call(ctx, "add", json.RawMessage(`"{\"a\": 1, \"b\": 1}"`)); err == nil || !strings.Contains(err.Error(), "must be a JSON object") {
		t.Fatalf("stringified: %v", err)
	}
	if res, err = add.Handler.Call(ctx, "add", modelio.Args(json.RawMessage(`"{\"a\": 1, \"b\": 1}"`))); err != nil || res.Text() != `{"sum":2}` {
		t.Fatalf("unwrapped at the boundary: %q %v", res.Text(), err)
	}
	// A field the model stringified is decoded where the schema wants it.
	if res, err = add.Handler.Call(ctx, "add", json.RawMessage(`{"a": 1, "b": 2}`)); err != nil || res.Text() != `{"sum":3}` {
		t.Fatalf("plain: %q %v", res.Text(), err)
	}
	// A schema violation never reaches the function: the call is refused,
	// naming the field.
	var refused *tool.RefusedError
	_, err = add.Handler.Call(ctx, "add", json.RawMessage(`{"a": "two", "b": 3}`))
	if !errors.As(err, &refused) || refused.Message != `argument "a": want integer, got string` {
		t.Fatalf("bad type: %v; want a refusal in the wording every handler uses", err)
	}
	_, err = add.Handler.Call(ctx, "add", nil)
	if !errors.As(err, &refused) || !strings.Contains(refused.Message, "b") {
		t.Fatalf("missing arguments: %v", err)
	}
	if _, err = add.Handler.Call(ctx, "other", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("other name: %v", err)
	}
}

func TestFuncErrorsAndResults(t *testing.T) {
	type none struct{}
	fail, err := tool.Func("fail", "", func(context.Context, none) (string, error) {
		return "", errors.New("disk full")
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fail.Handler.Call(context.Background(), "fail", nil)
	var failed *tool.FailedError
	if !errors.As(err, &failed) || failed.Message != "disk full" {
		t.Fatalf("got %v", err)
	}
	text, _ := tool.Func("hello", "", func(context.Context, none) (string, error) { return "hi", nil })
	if res, err := text.Handler.Call(context.Background(), "hello", json.RawMessage("null")); err != nil || res.Text() != "hi" || res.Structured != nil {
		t.Fatalf("string result: %q %s %v", res.Text(), res.Structured, err)
	}
	if _, err := tool.Func("bad", "", func(context.Context, int) (string, error) { return "", nil }); err == nil {
		t.Fatal("a non-struct input type must be refused")
	}
}

// A name no MCP host may offer a model (the specification's rule: 1 to 128
// ASCII letters, digits, '_', '-' or '.') is refused when the tool is made,
// naming the character or the length, rather than by a model's API at the
// first turn.
func TestFuncRefusesBadNames(t *testing.T) {
	type none struct{}
	fn := func(context.Context, none) (string, error) { return "", nil }
	for name, want := range map[string]string{
		"":                       "empty name",
		"get weather":            `character ' ' at byte 3`,
		"météo":                  `character 'é' at byte 1`,
		"a,b":                    `character ',' at byte 1`,
		"tab\tname":              `character '\t' at byte 3`,
		strings.Repeat("x", 129): "129 bytes long, more than 128",
	} {
		_, err := tool.Func(name, "", fn)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("tool.Func(%q): %v; want an error saying %s", name, err, want)
		}
	}
	for _, name := range []string{"getUser", "DATA_EXPORT_v2", "admin.tools.list", "a-b", strings.Repeat("x", 128)} {
		if _, err := tool.Func(name, "", fn); err != nil {
			t.Errorf("tool.Func(%q): %v; the specification allows it", name, err)
		}
	}
}

// Join serves exactly the tools of its sets: each name by the first set
// that defines it, whose definition alone is kept; every other name is
// not served; the servers are the first set's for a name two sets bring.
func TestJoin(t *testing.T) {
	type none struct{}
	a, _ := tool.Func("a", "", func(context.Context, none) (string, error) { return "A", nil })
	b, _ := tool.Func("b", "first b", func(context.Context, none) (string, error) { return "B", nil })
	b2, _ := tool.Func("b", "second b", func(context.Context, none) (string, error) { return "B2", nil })
	b2.Servers = map[string]tool.Server{"kb": {Instructions: "second"}, "fs": {Instructions: "fs"}}
	a.Servers = map[string]tool.Server{"kb": {Instructions: "first"}}
	set := tool.Join(a, b, b2)
	var names []string
	for _, d := range set.Definitions {
		names = append(names, d.Name+":"+d.Description)
	}
	if !slices.Equal(names, []string{"a:", "b:first b"}) {
		t.Errorf("definitions %v; want a, then the first b alone", names)
	}
	if res, err := set.Handler.Call(context.Background(), "b", nil); err != nil || res.Text() != "B" {
		t.Fatalf("b: %q %v; want the first set's", res.Text(), err)
	}
	if res, err := set.Handler.Call(context.Background(), "a", nil); err != nil || res.Text() != "A" {
		t.Fatalf("a: %q %v", res.Text(), err)
	}
	if _, err := set.Handler.Call(context.Background(), "c", nil); !errors.Is(err, tool.ErrUnserved) {
		t.Fatalf("c: %v", err)
	}
	if len(set.Servers) != 2 || set.Servers["kb"].Instructions != "first" || set.Servers["fs"].Instructions != "fs" {
		t.Errorf("servers %v; want kb of the first set, and fs", set.Servers)
	}
	empty := tool.Join()
	if _, err := empty.Handler.Call(context.Background(), "a", nil); len(empty.Definitions) != 0 || !errors.Is(err, tool.ErrUnserved) {
		t.Errorf("Join(): %v, %v; want nothing served", empty.Definitions, err)
	}
}

type meaning struct{ retry, unknown, fatal bool }

func (m meaning) Error() string        { return "failed" }
func (m meaning) Retryable() bool      { return m.retry }
func (m meaning) OutcomeUnknown() bool { return m.unknown }
func (m meaning) Fatal() bool          { return m.fatal }

// Proves that what a failure means is read through any wrapping, and that
// an error without the methods means none of it.
func TestFailureMeanings(t *testing.T) {
	for _, m := range []meaning{{retry: true}, {unknown: true}, {fatal: true}, {}} {
		err := fmt.Errorf("server %q: %w", "s", m)
		if tool.Retryable(err) != m.retry || tool.OutcomeUnknown(err) != m.unknown || tool.Fatal(err) != m.fatal {
			t.Errorf("%+v read as %v %v %v", m, tool.Retryable(err), tool.OutcomeUnknown(err), tool.Fatal(err))
		}
	}
	plain := errors.New("plain")
	if tool.Retryable(plain) || tool.OutcomeUnknown(plain) || tool.Fatal(plain) {
		t.Error("an error without the methods means something")
	}
}
