package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/agent"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/openai"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The same task in each mode, by a scripted model behind an
// OpenAI-compatible API on loopback that the real client (llm/openai)
// talks to: add 20 notes, search them, report how many carry each tag.
// What is sent to the model and what it answers is measured on the wire,
// in bytes of the requests' and answers' bodies, and said in tokens as a
// quarter of that (the usual rule for English and JSON; no tokenizer of
// a vendor's is at hand). The model is as frugal in each mode as the mode
// lets it be: it makes its 20 calls in one turn when it calls tools one
// by one.
func TestModesTokens(t *testing.T) {
	// The modes differ in how the tools reach the model; the server's
	// instructions and skills ride in every mode's prompt alike. The goal
	// is judged on the tools alone (the demo offered bare), and the whole
	// prompt's figures are printed beside.
	bare := modesTokens(t, func(p *mcpclient.Provider) tool.Source { return bareSource{p} })
	whole := modesTokens(t, func(p *mcpclient.Provider) tool.Source { return p })
	fmt.Println("modes, one task (20 notes added, searched, counted by tag), tokens = bytes on the wire / 4:")
	fmt.Printf("  %-11s %6s %10s %11s %9s %8s   %s\n", "mode", "turns", "tokens in", "tokens out", "total", "ratio", "with the server's instructions and skills")
	for _, m := range []agent.Mode{agent.ModeDirect, agent.ModeDisclosure, modeCode} {
		f, w := bare[m], whole[m]
		fmt.Printf("  %-11s %6d %10d %11d %9d %7.0f%%   %d tokens, %.0f%%\n", m, f.turns, f.in/4, f.out/4, (f.in+f.out)/4,
			100*bare.ratio(m), (w.in+w.out)/4, 100*whole.ratio(m))
	}
	if ratio := bare.ratio(modeCode); ratio > 0.30 {
		t.Fatalf("code mode sent and got %.0f%% of direct tools' tokens; the goal is at most 30%%", 100*ratio)
	}
}

// figures are one run of the task: bytes to and from the model, turns.
type figures struct {
	in, out, turns int
	answer         string
}

type modeFigures map[agent.Mode]figures

// ratio is mode's bytes over direct tools'.
func (f modeFigures) ratio(m agent.Mode) float64 {
	d := f[agent.ModeDirect]
	return float64(f[m].in+f[m].out) / float64(d.in+d.out)
}

// modesTokens runs the task in each mode on the demo, as source makes it
// a source, and measures it on the wire.
func modesTokens(t *testing.T, source func(*mcpclient.Provider) tool.Source) modeFigures {
	modes := []struct {
		mode   agent.Mode
		script func(step int, tools []string, results []string) reply
	}{
		{agent.ModeDirect, directScript},
		{agent.ModeDisclosure, disclosureScript},
		{modeCode, codeScript},
	}
	got := modeFigures{}
	for _, m := range modes {
		api := &fakeOpenAI{script: m.script}
		srv := httptest.NewServer(api)
		model, err := openai.New("m", &openai.Options{BaseURL: srv.URL, APIKey: "test", RequestOptions: []option.RequestOption{option.WithMaxRetries(0)}})
		if err != nil {
			t.Fatal(err)
		}
		p := mcpclient.FromServer("demo", demo.New())
		if err := p.Connect(context.Background()); err != nil {
			t.Fatal(err)
		}
		a, err := agent.New(withMode(agent.Config{Model: model, Tools: []tool.Source{source(p)}}, m.mode))
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Run(context.Background(), []llm.Message{llm.UserText("Add 20 notes, note 1 to note 20, tagged in turn work, home and errand; then tell me how many notes carry each tag.")})
		p.Close()
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", m.mode, err)
		}
		if api.failed != "" {
			t.Fatalf("%s: %s", m.mode, api.failed)
		}
		if want := "errand 6, home 7, work 7"; res.Text != want {
			t.Errorf("%s answered %q; want %q", m.mode, res.Text, want)
		}
		got[m.mode] = figures{in: api.in, out: api.out, turns: res.Steps, answer: res.Text}
	}
	return got
}

// bareSource offers a source's tools without what its servers bring
// (instructions, skills; their resources stay).
type bareSource struct{ tool.Source }

func (b bareSource) Offer(ctx context.Context) (tool.Set, error) {
	set, err := b.Source.Offer(ctx)
	servers := make(map[string]tool.Server, len(set.Servers))
	for name, s := range set.Servers {
		s.Instructions, s.Skills = "", nil
		servers[name] = s
	}
	set.Servers = servers
	return set, err
}

// A reply is what the scripted model answers a turn: tool calls, or text.
type reply struct {
	calls []llm.ToolCall
	text  string
}

func callOf(id, name string, args any) llm.ToolCall {
	data, _ := json.Marshal(args)
	return llm.ToolCall{ID: id, Name: name, Arguments: data}
}

// adds is the 20 add_note calls of the task.
func adds() []llm.ToolCall {
	tags := []string{"work", "home", "errand"}
	var cs []llm.ToolCall
	for i := range 20 {
		cs = append(cs, callOf(fmt.Sprintf("add%d", i+1), "add_note", map[string]any{
			"title": fmt.Sprintf("note %d", i+1), "body": "benchmark", "tags": []string{tags[i%3]},
		}))
	}
	return cs
}

// countTags reads the tags of search_notes's lines ("#1 note 1 [work]").
func countTags(lines string) string {
	counts := map[string]int{}
	for _, m := range regexp.MustCompile(`\[([^\]]+)\]`).FindAllStringSubmatch(lines, -1) {
		for tag := range strings.SplitSeq(m[1], ", ") {
			counts[tag]++
		}
	}
	return sayCounts(counts)
}

func sayCounts(counts map[string]int) string {
	var parts []string
	for _, tag := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", tag, counts[tag]))
	}
	return strings.Join(parts, ", ")
}

// directScript: every tool is offered; the 20 adds in one turn, then the
// search, then the answer.
func directScript(step int, _ []string, results []string) reply {
	switch step {
	case 0:
		return reply{calls: adds()}
	case 1:
		return reply{calls: []llm.ToolCall{callOf("s", "search_notes", map[string]string{"query": "benchmark"})}}
	}
	return reply{text: countTags(results[len(results)-1])}
}

// disclosureScript: find the tools, load them, then as directScript.
func disclosureScript(step int, _ []string, results []string) reply {
	switch step {
	case 0:
		return reply{calls: []llm.ToolCall{callOf("f", agent.FindToolsName, map[string]string{"query": "add search note"})}}
	case 1:
		return reply{calls: []llm.ToolCall{callOf("l", agent.LoadToolsName, map[string][]string{"names": {"add_note", "search_notes"}})}}
	}
	return directScript(step-2, nil, results)
}

// codeScript: read the two declarations, run one script that does the
// whole task, answer from what it returned.
func codeScript(step int, _ []string, results []string) reply {
	switch step {
	case 0:
		return reply{calls: []llm.ToolCall{callOf("d", "describe_tools", map[string]string{"query": "demo.add_note demo.search_notes"})}}
	case 1:
		return reply{calls: []llm.ToolCall{callOf("r", "run_code", map[string]string{"code": `const tags = ["work", "home", "errand"];
await Promise.all(Array.from({length: 20}, (_, i) =>
  tools.demo.add_note({title: "note " + (i + 1), body: "benchmark", tags: [tags[i % 3]]})));
const found = await tools.demo.search_notes({query: "benchmark"});
const counts = {};
for (const m of found.matchAll(/\[([^\]]+)\]/g)) for (const t of m[1].split(", ")) counts[t] = (counts[t] || 0) + 1;
return counts;`})}}
	}
	last := results[len(results)-1]
	_, value, _ := strings.Cut(last, "Returned: ")
	value, _, _ = strings.Cut(value, "\n")
	var counts map[string]int
	json.Unmarshal([]byte(value), &counts)
	return reply{text: sayCounts(counts)}
}

// fakeOpenAI is an OpenAI-compatible chat completions API that answers by
// a script and counts the bytes of what it is sent and what it answers.
type fakeOpenAI struct {
	script func(step int, tools []string, results []string) reply

	mu      sync.Mutex
	in, out int
	failed  string
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	step := 0
	var results, tools []string
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			step++
		case "tool":
			results = append(results, fmt.Sprint(m.Content))
		}
	}
	for _, tl := range req.Tools {
		tools = append(tools, tl.Function.Name)
	}
	rep := f.script(step, tools, results)
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	msg := struct {
		Role      string  `json:"role"`
		Content   *string `json:"content"`
		ToolCalls []call  `json:"tool_calls,omitempty"`
	}{Role: "assistant"}
	finish := "stop"
	if len(rep.calls) > 0 {
		finish = "tool_calls"
		for _, c := range rep.calls {
			var tc call
			tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments = c.ID, "function", c.Name, string(c.Arguments)
			msg.ToolCalls = append(msg.ToolCalls, tc)
		}
	} else {
		msg.Content = &rep.text
	}
	answered, _ := json.Marshal(msg)
	f.mu.Lock()
	f.in += len(body)
	f.out += len(answered)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"finish_reason":%q,"message":%s}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		finish, answered, len(body)/4, len(answered)/4, (len(body)+len(answered))/4)
}
