package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// everything returns the arguments that start server-everything after --.
func everything(t *testing.T) []string {
	return []string{"--", npmtest.Bin(t, "mcp-server-everything"), "stdio"}
}

// Without a terminal, or with --no-input, what a server asks is declined
// with a line saying what it asked; the server hears the decline.
func TestElicitationWithoutATerminal(t *testing.T) {
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, append([]string{"call", "trigger-elicitation-request"}, everything(t)...)...)
	expect(t, r, 0, "User declined to provide the requested information",
		`server "mcp-server-everything" (tool "trigger-elicitation-request") asked for input: Please provide inputs for the following fields: — declined: stdin or stderr is not a terminal to ask on`)
	r = mcpbridge(t, dir, "", nil, append([]string{"call", "trigger-elicitation-request", "--no-input"}, everything(t)...)...)
	expect(t, r, 0, "User declined", "declined: --no-input was given")
}

// pageServer is a web page that counts its visitors: what a URL
// elicitation points at, which mcpbridge must never fetch.
func pageServer(t *testing.T) (string, *atomic.Int32) {
	var visits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { visits.Add(1) }))
	t.Cleanup(srv.Close)
	return srv.URL + "/connect?account=1", &visits
}

// A URL elicitation without a terminal shows the URL in its line, and the
// page is never fetched.
func TestURLElicitationWithoutATerminal(t *testing.T) {
	page, visits := pageServer(t)
	args := append([]string{"call", "trigger-url-elicitation", `{"url": "` + page + `", "message": "Connect your account."}`}, everything(t)...)
	r := mcpbridge(t, t.TempDir(), "", nil, args...)
	expect(t, r, 0, "asked you to open "+page+": Connect your account. — declined", "User declined to open the URL")
	if visits.Load() != 0 {
		t.Fatalf("the page was fetched %d times", visits.Load())
	}
}

// The roots are each --root, else a server's "roots" in the config, and
// none unless one is named (the server then offers no tool that lists
// them), nor with --no-roots.
func TestRoots(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	r := mcpbridge(t, dir, "", nil, append([]string{"call", "get-roots-list", "--root", a, "--root", b}, everything(t)...)...)
	expect(t, r, 0, "(2 total)", "URI: file://"+a, "URI: file://"+b)
	// A server's "roots" in the config, a relative one from the working
	// directory; --root in their place.
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": npmtest.Bin(t, "mcp-server-everything"), "args": []string{"stdio"}, "roots": []string{"a"}},
	}})
	cfg := writeConfig(t, dir, "roots.json", string(config))
	r = mcpbridge(t, dir, "", nil, "call", "get-roots-list", "--config", cfg)
	expect(t, r, 0, "(1 total)", "URI: file://"+a)
	r = mcpbridge(t, dir, "", nil, "call", "get-roots-list", "--config", cfg, "--root", b)
	expect(t, r, 0, "(1 total)", "URI: file://"+b)
	for _, flags := range [][]string{nil, {"--no-roots"}} {
		r = mcpbridge(t, dir, "", nil, append(append([]string{"tools"}, flags...), everything(t)...)...)
		expect(t, r, 0, "echo")
		if strings.Contains(r.out, "get-roots-list") {
			t.Fatalf("get-roots-list offered with %v, no root named:\n%s", flags, r.out)
		}
	}
	expect(t, mcpbridge(t, dir, "", nil, append([]string{"tools", "--no-roots", "--root", a}, everything(t)...)...), 2, "--root or --no-roots, not both")
}

// samplingModel serves a Chat Completions API that answers a request
// whose system prompt is server-everything's with answer, and records
// each such request's messages; any other request (chat's own turns) gets
// a call of the tool name with the arguments args, then an answer quoting
// its result.
func samplingModel(t *testing.T, answer, name, args string) (string, func() []string) {
	var mu sync.Mutex
	var sampled []string
	srv := httptest.NewServer(streamed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		reply := func(message string) {
			fmt.Fprintf(w, `{"id":"1","object":"chat.completion","model":"fake-model","choices":[{"index":0,"finish_reason":"stop","message":%s}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, message)
		}
		text := func(s string) string {
			data, _ := json.Marshal(map[string]string{"role": "assistant", "content": s})
			return string(data)
		}
		last := body.Messages[len(body.Messages)-1]
		switch {
		case body.Messages[0].Content == "You are a helpful test server.":
			mu.Lock()
			for _, m := range body.Messages {
				sampled = append(sampled, fmt.Sprintf("%s: %v", m.Role, m.Content))
			}
			mu.Unlock()
			reply(text(answer))
		case last.Role == "tool":
			reply(text(fmt.Sprintf("The tool said: %v", last.Content)))
		default:
			io.WriteString(w, `{"id":"1","object":"chat.completion","model":"fake-model","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[`+
				`{"id":"c1","type":"function","function":{"name":"`+name+`","arguments":`+strconv.Quote(args)+`}}]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		}
	})))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), sampled...)
	}
}

// call --sampling (which mcpbridge runs in mcpbridge-chat, where the
// model is) answers the server's sampling request with the model, showing
// the request and the answer; without it the server is not told it may
// ask, and offers no tool that does.
func TestSamplingInCall(t *testing.T) {
	url, sampled := samplingModel(t, "Autumn moon rising.", "", "")
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="}
	dir := t.TempDir()
	args := append([]string{"call", "trigger-sampling-request", `{"prompt": "a haiku", "maxTokens": 30}`, "--sampling", "--model", "fake-model"}, everything(t)...)
	r := mcpbridge(t, dir, "", env, args...)
	expect(t, r, 0, "LLM sampling result", "Autumn moon rising.", `"model": "fake-model"`,
		`server "mcp-server-everything" asks the model: Resource trigger-sampling-request context: a haiku`,
		`(system prompt "You are a helpful test server."; 1 messages, 0 tools, up to 30 tokens)`,
		"the model answered: Autumn moon rising.")
	if got := sampled(); len(got) != 2 || got[1] != "user: Resource trigger-sampling-request context: a haiku" {
		t.Fatalf("the model was sent %q", got)
	}
	// Without it, the name is not found, and the user is told why it may be
	// missing and how to list what --sampling would offer; tools --sampling
	// lists that, asking no model.
	args = append([]string{"call", "trigger-sampling-request", `{"prompt": "a haiku"}`}, everything(t)...)
	expect(t, mcpbridge(t, dir, "", env, args...), 2, `no tool "trigger-sampling-request"`,
		"a server may offer some tools only to a client that allows sampling: mcpbridge tools --sampling lists them")
	r = mcpbridge(t, dir, "", nil, append([]string{"tools", "--sampling"}, everything(t)...)...)
	expect(t, r, 0, "trigger-sampling-request")
	r = mcpbridge(t, dir, "", nil, append([]string{"tools"}, everything(t)...)...)
	if expect(t, r, 0, "echo"); strings.Contains(r.out, "trigger-sampling-request") {
		t.Errorf("tools without --sampling listed trigger-sampling-request:\n%s", r.out)
	}
}

// chat --sampling: the model's call of a tool whose server samples the
// model is answered by the same model, on a request of its own (the
// server's system prompt, not chat's); chat's --no-input declines what a
// server asks.
func TestSamplingInChat(t *testing.T) {
	url, sampled := samplingModel(t, "Autumn moon rising.", "trigger-sampling-request", `{"prompt":"a haiku","maxTokens":30}`)
	env := []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="}
	args := append([]string{"chat", "-p", "write a haiku", "--sampling", "--model", "fake-model"}, everything(t)...)
	r := mcpbridge(t, t.TempDir(), "", env, args...)
	expect(t, r, 0, "→ trigger-sampling-request", "asks the model: Resource trigger-sampling-request context: a haiku",
		"the model answered: Autumn moon rising.", "The tool said: LLM sampling result")
	if got := sampled(); len(got) != 2 || got[0] != "system: You are a helpful test server." {
		t.Fatalf("the model was sampled with %q", got)
	}
	// What a server asks the user in a chat is declined with --no-input.
	url, _ = samplingModel(t, "", "trigger-elicitation-request", `{}`)
	env[0] = "OPENAI_BASE_URL=" + url
	args = append([]string{"chat", "-p", "ask me", "--no-input", "--model", "fake-model"}, everything(t)...)
	expect(t, mcpbridge(t, t.TempDir(), "", env, args...), 0, "declined: --no-input was given", "The tool said: ", "User declined")
}
