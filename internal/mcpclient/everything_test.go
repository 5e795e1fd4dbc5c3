package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// everything starts server-everything, named "everything", for the test,
// with opts.
func everything(t *testing.T, opts ...mcpclient.Option) *mcpclient.Provider {
	t.Helper()
	bin := npmtest.Bin(t, "mcp-server-everything")
	p := mcpclient.FromCommand(bin, []string{"stdio"}, append([]mcpclient.Option{mcpclient.WithName("everything")}, opts...)...)
	if err := p.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestServerEverything(t *testing.T) {
	p := everything(t)
	names := p.ToolNames()
	if !slices.Contains(names, "echo") || !slices.Contains(names, "get-tiny-image") {
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
	res, err := p.Handler().Call(mcpclient.WithTaskStatus(ctx, st.record), "simulate-research-query", json.RawMessage(`{"topic": "python", "ambiguous": true}`))
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

// A research task whose call is cancelled midway is cancelled on the
// server.
func TestServerEverythingCancelTask(t *testing.T) {
	t.Parallel()
	p := everything(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var id string
	ctx = mcpclient.WithTaskStatus(ctx, func(st mcpclient.TaskState) {
		if st.Status == mcpclient.TaskWorking && id == "" {
			id = st.ID // told on the call's goroutine, before its next poll
			cancel()
		}
	})
	if _, err := p.CallToolResult(ctx, "simulate-research-query", map[string]any{"topic": "tides"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want the call cancelled", err)
	}
	raw, err := p.Request(context.Background(), "tasks/get", map[string]string{"taskId": id})
	var got struct{ Status string }
	if err != nil || json.Unmarshal(raw, &got) != nil || got.Status != "cancelled" {
		t.Fatalf("task %q on the server: %s, %v", id, raw, err)
	}
}

// The host's side against server-everything (protocol 2025-11-25, whose
// server sends its requests on its own): it offers the tools that ask the
// host only to a host that declared it can answer, and each is answered:
// a form accepted and declined, a URL shown and never fetched, the host's
// model sampled, the roots listed.
func TestServerEverythingAsksTheHost(t *testing.T) {
	bin := npmtest.Bin(t, "mcp-server-everything")
	ctx := context.Background()
	plain := mcpclient.FromCommand(bin, []string{"stdio"}, mcpclient.WithName("everything"))
	if err := plain.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	asking := []string{"trigger-elicitation-request", "trigger-url-elicitation", "trigger-sampling-request", "get-roots-list"}
	for _, name := range asking {
		if slices.Contains(plain.ToolNames(), name) {
			t.Errorf("%s offered to a host that cannot answer it", name)
		}
	}

	var fetched atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { fetched.Add(1) }))
	defer page.Close()
	var answer tool.Answer
	var asked []*tool.Elicitation
	model := &scriptedModel{answer: llm.Message{Parts: []tool.Part{tool.TextPart{Text: "a scripted answer"}}}}
	root, _ := mcpclient.RootOf(t.TempDir())
	p := mcpclient.FromCommand(bin, []string{"stdio"}, mcpclient.WithName("everything"),
		mcpclient.WithElicitation(func(_ context.Context, e *tool.Elicitation) (tool.Answer, error) {
			asked = append(asked, e)
			return answer, nil
		}),
		mcpclient.WithSampling(mcpclient.Sampling{Model: model}),
		mcpclient.WithRoots(root))
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, name := range asking {
		if !slices.Contains(p.ToolNames(), name) {
			t.Fatalf("%s not offered to a host that answers it: %v", name, p.ToolNames())
		}
	}
	h := p.Handler()

	answer = tool.Answer{Action: "accept", Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}}
	res := call(t, h, "trigger-elicitation-request", ``)
	if !strings.Contains(res.Text(), "Name: Ada Lovelace") || !strings.Contains(res.Text(), "Favorite Integer: 7") {
		t.Fatalf("accepted: %q", res.Text())
	}
	if e := asked[0]; e.Server != "everything" || e.Schema == nil {
		t.Fatalf("asked %+v", e)
	}
	if f, err := form.Parse(asked[0].Schema); err != nil || len(f.Fields) != 13 || f.Fields[0].Name != "name" {
		t.Fatalf("asked %s: %v", asked[0].Schema, err)
	}
	answer = tool.Answer{Action: "decline"}
	if res := call(t, h, "trigger-elicitation-request", ``); !strings.Contains(res.Text(), "User declined") {
		t.Fatalf("declined: %q", res.Text())
	}

	answer = tool.Answer{Action: "accept"}
	res = call(t, h, "trigger-url-elicitation", `{"url": "`+page.URL+`/connect", "message": "Connect your account."}`)
	if !strings.Contains(res.Text(), "User completed the URL elicitation flow") {
		t.Fatalf("URL accepted: %q", res.Text())
	}
	if e := asked[len(asked)-1]; e.URL != page.URL+"/connect" || e.Message != "Connect your account." {
		t.Fatalf("asked %+v", e)
	}
	if fetched.Load() != 0 {
		t.Fatalf("the URL was fetched %d times", fetched.Load())
	}

	res = call(t, h, "trigger-sampling-request", `{"prompt": "Say something.", "maxTokens": 50}`)
	if !strings.Contains(res.Text(), "a scripted answer") || !strings.Contains(res.Text(), "scripted-1") {
		t.Fatalf("sampling: %q", res.Text())
	}
	if r := model.requests()[0]; r.System != "You are a helpful test server." || r.MaxTokens != 50 {
		t.Fatalf("the model was sent %+v", r)
	}

	if res := call(t, h, "get-roots-list", ``); !strings.Contains(res.Text(), root.URI) {
		t.Fatalf("roots: %q", res.Text())
	}
}
