package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/handle"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/policy"
)

func TestServesTheCatalogToBothGenerations(t *testing.T) {
	bothGenerations(t, func(t *testing.T, v string, cs *mcp.ClientSession) {
		if got := cs.InitializeResult().ProtocolVersion; got != v {
			t.Errorf("negotiated %q, want %q", got, v)
		}
		want := []string{"a_block", "a_echo", "a_log", "a_steps", "b_block", "b_echo", "b_log", "b_steps"}
		if got := toolNames(t, cs); !slices.Equal(got, want) {
			t.Errorf("tools %v, want %v", got, want)
		}
		for _, server := range []string{"a", "b"} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: server + "_echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != server+": hi" {
				t.Errorf("%s_echo: %q", server, got)
			}
		}
	})
}

func TestRefusalsAreResultsAndUnknownToolsErrors(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	cs := connect(t, url, versions[0], nil, nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(t, res), `"text"`) {
		t.Errorf("bad arguments: want an isError result naming the argument, got %v %q", res.IsError, text(t, res))
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestPolicyHidesAndRefusesDeniedTools(t *testing.T) {
	a := newUpstream(t, "a")
	pol, err := policy.New(policy.Config{Deny: []string{"block", "steps", "log"}})
	if err != nil {
		t.Fatal(err)
	}
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{Policy: pol})
	url, _ := serve(t, g)
	cs := connect(t, url, versions[1], nil, nil)
	if got := toolNames(t, cs); !slices.Equal(got, []string{"a_echo"}) {
		t.Errorf("tools %v, want only a_echo", got)
	}
	// Not listed, so not served by name; nor through call_tool.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_block"}); err == nil {
		t.Error("a denied tool was called")
	}
	small := connect(t, url+"?disclosure=1", versions[0], nil, nil)
	res, err := small.CallTool(t.Context(), &mcp.CallToolParams{Name: gateway.CallToolName, Arguments: map[string]any{"name": "mcp__a__block"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !res.IsError || got != `no tool is named "mcp__a__block"; use find_tools` {
		t.Errorf("call_tool of a denied tool by its alias: %q, want it as of a tool that does not exist", got)
	}
}

func TestPassesResourcesTemplatesAndPromptsThrough(t *testing.T) {
	bothGenerations(t, func(t *testing.T, v string, cs *mcp.ClientSession) {
		names := listed(t, cs.Resources(t.Context(), nil), func(r *mcp.Resource) string { return r.Name + "=" + r.URI })
		slices.Sort(names)
		if want := []string{"a_readme=memo://a/readme", "b_readme=memo://b/readme"}; !slices.Equal(names, want) {
			t.Errorf("resources %v, want %v", names, want)
		}
		res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memo://b/readme"})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Contents[0].Text; got != "read me, from b" {
			t.Errorf("read: %q", got)
		}
		res, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memo://a/notes/7"})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Contents[0].Text; got != "note memo://a/notes/7" {
			t.Errorf("read through a template: %q", got)
		}
		pr, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "b_greet", Arguments: map[string]string{"who": "you"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := pr.Messages[0].Content.(*mcp.TextContent).Text; got != "hello you from b" {
			t.Errorf("prompt: %q", got)
		}
	})
}

func TestListChangedReachesClients(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	changed := make(chan struct{}, 4)
	cs := connect(t, url, versions[1], &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}, nil)
	toolNames(t, cs)
	mcp.AddTool(a.srv, &mcp.Tool{Name: "fresh"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil, nil
	})
	<-changed
	if got := toolNames(t, cs); !slices.Contains(got, "a_fresh") {
		t.Errorf("after list_changed: %v", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_fresh"})
	if err != nil {
		t.Fatal(err)
	}
	if text(t, res) != "new" {
		t.Errorf("a_fresh: %q", text(t, res))
	}
}

func TestProgressReachesTheClient(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			got := make(chan string, 4)
			cs := connect(t, url, v, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					got <- r.Params.Message
				},
			}, nil)
			params := &mcp.CallToolParams{Name: "a_steps"}
			params.SetProgressToken("tok")
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(t.Context(), params)
				done <- err
			}()
			for _, want := range []string{"step 1", "step 2"} {
				if m := <-got; m != want {
					t.Errorf("progress %q, want %q", m, want)
				}
			}
			a.proceed <- struct{}{}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestACancelledCallIsCancelledOnTheServer(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, url, v, nil, nil)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "a_block"})
				done <- err
			}()
			<-a.blocked
			cancel()
			if err := <-a.ended; err == nil {
				t.Error("the server's call was not cancelled")
			}
			if err := <-done; err == nil {
				t.Error("the cancelled call succeeded")
			}
		})
	}
}

func TestAClientThatDisconnectsMidCallCancelsIt(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	// A 2026-07-28 request is its own HTTP exchange: closing it is the
	// client going away.
	ctx, cancel := context.WithCancel(t.Context())
	req := newCall(t, ctx, url, callRequest{name: "a_block", params: `"arguments":{},`, meta: `"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},`})
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		done <- err
	}()
	<-a.blocked
	cancel()
	if err := <-a.ended; err == nil {
		t.Error("the server's call went on after its client went away")
	}
	<-done
}

// A server of either generation logs to a client that asked: a 2025-11-25
// server is sent logging/setLevel, a 2026-07-28 one the level in each
// request's _meta (it has no setLevel, and logs nothing to a request
// without a level).
func TestServerLogsReachAClientThatAskedForThem(t *testing.T) {
	a := newUpstream(t, "a")
	stateless := serveStateless(t, a.srv, nil)
	for _, up := range []struct{ version, url string }{{"2025-11-25", a.http.URL}, {"2026-07-28", stateless}} {
		t.Run(up.version, func(t *testing.T) {
			g := start(t, []config.Server{{Name: "a", URL: up.url, Required: true}}, nil)
			if p, _ := handle.Core[catalog.Toolset](g.Toolset()).Provider("a"); p.ProtocolVersion() != up.version {
				t.Fatalf("the server speaks %s, want %s", p.ProtocolVersion(), up.version)
			}
			url, _ := serve(t, g)
			logs := make(chan *mcp.LoggingMessageParams, 4)
			cs := connect(t, url, versions[1], &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- r.Params },
			}, nil)
			if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_log"}); err != nil {
				t.Fatal(err)
			}
			if m := <-logs; m.Logger != "a/tool" || m.Data != "logged by a" {
				t.Errorf("log message: %+v", m)
			}
		})
	}
}

// A server's JSON-RPC error reaches the client with its code and its data,
// which say what the client lacks.
func TestAServersErrorKeepsItsData(t *testing.T) {
	a := newUpstream(t, "a")
	a.srv.AddPrompt(&mcp.Prompt{Name: "needs"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, &jsonrpc.Error{Code: -32021, Message: "sampling required", Data: json.RawMessage(`{"requiredCapabilities":{"sampling":{}}}`)}
	})
	g := start(t, []config.Server{a.config(true)}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		_, err := connect(t, url, v, nil, nil).GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "a_needs"})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32021 || string(je.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
			t.Errorf("%s: %#v", v, err)
		}
	}
}

// bothGenerations runs f, as a subtest per protocol generation v, with a
// client of v connected to a gateway over two upstreams, a and b.
func bothGenerations(t *testing.T, f func(t *testing.T, v string, cs *mcp.ClientSession)) {
	a, b := newUpstream(t, "a"), newUpstream(t, "b")
	g := start(t, []config.Server{a.config(true), b.config(true)}, nil)
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) { f(t, v, connect(t, url, v, nil, nil)) })
	}
}

// A server that lists null among its tools, resources, templates and
// prompts (internal/testing/hostile's null-items) has its good items served, and
// the gateway goes on: a null is left out, not read.
func TestNullItemsInAServersListingsAreLeftOut(t *testing.T) {
	cs := behindGateway(t, "null-items")
	ctx := t.Context()
	got := slices.Concat(
		listed(t, cs.Resources(ctx, nil), func(r *mcp.Resource) string { return "resource " + r.URI }),
		listed(t, cs.ResourceTemplates(ctx, nil), func(r *mcp.ResourceTemplate) string { return "template " + r.URITemplate }),
		listed(t, cs.Prompts(ctx, nil), func(p *mcp.Prompt) string { return "prompt " + p.Name }),
		listed(t, cs.Tools(ctx, nil), func(tl *mcp.Tool) string { return "tool " + tl.Name }))
	if want := []string{"resource text://good", "template text://good/{id}", "prompt h_good", "tool h_echo"}; !slices.Equal(got, want) {
		t.Errorf("served %q, want %q", got, want)
	}
}

// A tool go-sdk's server would refuse (by panicking in AddTool), here one
// whose schema puts an x-mcp-header on an object, is left out, and the
// gateway serves the rest. go-sdk's client leaves such a tool out of the
// listing already; the gateway guards AddTool as it guards the resources
// and prompts it adds, should a listing bring one through.
func TestAToolGoSDKRefusesIsLeftOut(t *testing.T) {
	if got := toolNames(t, behindGateway(t, "bad-header")); !slices.Equal(got, []string{"h_echo"}) {
		t.Errorf("served %q, want h_echo alone", got)
	}
}

// behindGateway is a 2026-07-28 client of a gateway in front of the
// hostile server in mode, named h, over streamable HTTP.
func behindGateway(t *testing.T, mode string) *mcp.ClientSession {
	t.Helper()
	h, err := hostile.New(mode)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	url, _ := serve(t, start(t, []config.Server{{Name: "h", URL: srv.URL, Required: true}}, nil))
	return connect(t, url, versions[0], nil, nil)
}
