package mcptool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/npmtest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// everything starts server-everything, named "everything", for the test,
// with opts.
func everything(t *testing.T, opts ...mcptool.Option) *mcptool.Provider {
	t.Helper()
	bin := npmtest.Bin(t, "mcp-server-everything")
	p := mcptool.FromCommand(bin, []string{"stdio"}, append([]mcptool.Option{mcptool.WithName("everything")}, opts...)...)
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestServerEverything(t *testing.T) {
	p := everything(t)
	names := p.ToolNames()
	if !contains(names, "echo") || !contains(names, "get-tiny-image") {
		t.Fatalf("tools %v", names)
	}
	if !strings.Contains(p.Instructions(), "Everything") {
		t.Errorf("instructions %q", p.Instructions())
	}
	h := p.Handler()
	res := call(t, h, "echo", `{"message": "hello from mcpbridge"}`)
	if !strings.Contains(res.Text(), "hello from mcpbridge") {
		t.Fatalf("echo: %q", res.Text())
	}
	res = call(t, h, "mcp__everything__get-tiny-image", ``)
	var images int
	for _, part := range res.Parts {
		if img, ok := part.(tool.ImagePart); ok {
			images++
			if img.MIMEType != "image/png" || len(img.Data) == 0 {
				t.Errorf("image part %s, %d bytes", img.MIMEType, len(img.Data))
			}
		}
	}
	if images != 1 {
		t.Fatalf("get-tiny-image: %d image parts in %#v", images, res.Parts)
	}
}

// server-everything's simulate-research-query is a 2025-11-25 task that
// requires to be called as one and asks, when the topic is ambiguous, for
// a clarification midway (through tasks/result). It is one call to a model:
// answered through the elicitation hook, it completes with the answer.
func TestServerEverythingResearchTask(t *testing.T) {
	t.Parallel()
	asked := 0
	p := everything(t, answer(map[string]any{"interpretation": "snake"}, &asked))
	ctx := context.Background()
	var st statuses
	res, err := p.Handler().Call(mcptool.WithTaskStatus(ctx, st.record), "simulate-research-query", json.RawMessage(`{"topic": "python", "ambiguous": true}`))
	if err != nil || !strings.Contains(res.Text(), "python (snake)") || asked != 1 {
		t.Fatalf("asked %d times; result %q, %v", asked, res.Text(), err)
	}
	// Its status notifications show each stage that lasts (a second each),
	// polling alone one at least a second long.
	for _, want := range []string{`; input_required Found multiple interpretations for "python"`, `; working Continuing with interpretation: "snake"`, "; completed "} {
		if !strings.Contains(st.String(), want) {
			t.Errorf("the statuses lack %q: %s", want, st.String())
		}
	}
}

// A research task cancelled midway is cancelled on the server.
func TestServerEverythingCancelTask(t *testing.T) {
	t.Parallel()
	p := everything(t)
	ctx := context.Background()
	task, err := p.StartTask(ctx, "simulate-research-query", map[string]any{"topic": "tides"})
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() == "" || task.State().Status != mcptool.TaskWorking {
		t.Fatalf("started %+v", task.State())
	}
	if err := task.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := p.Request(ctx, "tasks/get", map[string]string{"taskId": task.ID()})
	var got struct{ Status string }
	if err != nil || json.Unmarshal(raw, &got) != nil || got.Status != "cancelled" {
		t.Fatalf("on the server: %s, %v", raw, err)
	}
	var te *mcptool.TaskError
	if _, err := task.Wait(ctx); !errors.As(err, &te) {
		t.Fatalf("Wait: %v", err)
	}
}
