package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/policy"
)

// everythingOfNotes is all a client may see of the server notes
// (newNotes), as notesSeen names it.
var everythingOfNotes = []string{
	"tool notes_add_note", "resource note://payroll", "template note://notes/{id}", "prompt notes_summarize",
	"read note://payroll", "read note://notes/7", "get notes_summarize",
	"complete notes_summarize", "complete note://notes/{id}", "subscribe note://payroll", "instructions",
}

// A client's policy decides what it sees of every primitive of every
// server: alice, allowed github's tools alone, sees nothing of notes (its
// tools, resources, templates, prompts, completions, subscriptions,
// instructions), each refused as what does not exist is; dave, allowed
// notes' payroll by the name the gateway serves it under, sees that
// resource alone; bob, with no policy of his own, sees everything.
func TestAClientAllowedNothingOfAServerSeesNothingOfIt(t *testing.T) {
	notes, github := newNotes(t, "notes"), newUpstream(t, "github")
	g := start(t, []config.Server{notes.config(), github.config(true)}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice", Allow: []string{"github_*"}},
			"bob":   {Token: "tok-bob"},
			"dave":  {Token: "tok-dave", Allow: []string{"github_*", "notes_payroll"}},
		},
	})
	url, _ := serve(t, g)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			if got := notesSeen(t, url, v, "tok-bob"); !slices.Equal(got, everythingOfNotes) {
				t.Errorf("bob sees %q of notes, want everything: %q", got, everythingOfNotes)
			}
			if got := notesSeen(t, url, v, "tok-alice"); len(got) > 0 {
				t.Errorf("alice, allowed nothing of notes, sees %q of it", got)
			}
			want := []string{"resource note://payroll", "read note://payroll", "subscribe note://payroll", "instructions"}
			if got := notesSeen(t, url, v, "tok-dave"); !slices.Equal(got, want) {
				t.Errorf("dave sees %q of notes, want %q", got, want)
			}
		})
	}
}

// The gateway's policy (serve's --deny) hides what it denies in every
// primitive from every client.
func TestTheGatewaysPolicyHidesAServerInEveryPrimitive(t *testing.T) {
	notes, github := newNotes(t, "notes"), newUpstream(t, "github")
	g := start(t, []config.Server{notes.config(), github.config(true)}, &gateway.Options{
		Policy: mustPolicy(t, policy.Config{Deny: []string{"notes_*"}}),
	})
	url, _ := serve(t, g)
	for _, v := range versions {
		if got := notesSeen(t, url, v, ""); len(got) > 0 {
			t.Errorf("%s: a client sees %q of notes, which the gateway denies whole", v, got)
		}
	}
}

// notesSeen is what a client of protocol version v with token (none: "")
// sees of the server notes (newNotes) through the gateway at url, one
// entry a primitive it lists, reads, gets, completes or subscribes to;
// what it is refused must be refused as what does not exist is.
func notesSeen(t *testing.T, url, v, token string) []string {
	t.Helper()
	ctx := t.Context()
	var client *http.Client
	if token != "" {
		client = bearer(token)
	}
	cs := connect(t, url, v, nil, client)
	var seen []string
	if slices.Contains(toolNames(t, cs), "notes_add_note") {
		seen = append(seen, "tool notes_add_note")
	}
	for _, r := range listed(t, cs.Resources(ctx, nil), func(r *mcp.Resource) string { return r.URI }) {
		if strings.HasPrefix(r, "note:") {
			seen = append(seen, "resource "+r)
		}
	}
	for _, r := range listed(t, cs.ResourceTemplates(ctx, nil), func(r *mcp.ResourceTemplate) string { return r.URITemplate }) {
		if strings.HasPrefix(r, "note:") {
			seen = append(seen, "template "+r)
		}
	}
	for _, p := range listed(t, cs.Prompts(ctx, nil), func(p *mcp.Prompt) string { return p.Name }) {
		if strings.HasPrefix(p, "notes_") {
			seen = append(seen, "prompt "+p)
		}
	}
	// A refusal must say no more than a request of nothing that exists.
	unknownRead := code(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://nothing"}))
	for _, uri := range []string{"note://payroll", "note://notes/7"} {
		if c := code(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})); c == 0 {
			seen = append(seen, "read "+uri)
		} else if c != unknownRead {
			t.Errorf("reading %s: error %d, unlike a resource that does not exist (%d)", uri, c, unknownRead)
		}
	}
	unknownPrompt := code(cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "notes_nothing"}))
	if c := code(cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "notes_summarize"})); c == 0 {
		seen = append(seen, "get notes_summarize")
	} else if c != unknownPrompt {
		t.Errorf("getting notes_summarize: error %d, unlike a prompt that does not exist (%d)", c, unknownPrompt)
	}
	for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "notes_summarize"}, {Type: "ref/resource", URI: "note://notes/{id}"}} {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "id", Value: "7"}})
		if err == nil {
			seen = append(seen, "complete "+ref.Name+ref.URI)
		}
	}
	if v == versions[0] {
		// go-sdk's Subscribe says nothing of a refused listen.
		unknownListen := listenRaw(t, url, token, "note://nothing")
		if c := listenRaw(t, url, token, "note://payroll"); c == 0 {
			seen = append(seen, "subscribe note://payroll")
		} else if c != unknownListen {
			t.Errorf("subscribing to note://payroll: error %d, unlike a resource that does not exist (%d)", c, unknownListen)
		}
	} else if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "note://payroll"}); err == nil {
		seen = append(seen, "subscribe note://payroll")
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "note://payroll"}); err != nil {
			t.Error(err)
		}
	}
	if strings.Contains(cs.InitializeResult().Instructions, "## notes") {
		seen = append(seen, "instructions")
	}
	return seen
}

// code is err's JSON-RPC code: 0 for none, -1 for an error of no code.
func code[T any](_ T, err error) int64 {
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &wire):
		return wire.Code
	}
	return -1
}

func mustPolicy(t *testing.T, c policy.Config) *policy.Policy {
	t.Helper()
	p, err := policy.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bearer is an HTTP client that sends token.
func bearer(token string) *http.Client {
	return &http.Client{Transport: oauthtest.Bearer(token)}
}

// listenRaw sends a subscriptions/listen of uri (protocol 2026-07-28)
// with token (none: "") to the gateway at url, and returns 0 once it is
// acknowledged (ending it), or the JSON-RPC code of its refusal.
func listenRaw(t *testing.T, url, token, uri string) int64 {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel() // the listen ends with its request
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[%q]},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`, uri)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			if strings.HasPrefix(sc.Text(), "{") { // a JSON body
				data = sc.Text()
			} else {
				continue
			}
		}
		var msg struct {
			Method string
			Error  *jsonrpc.Error
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		switch {
		case msg.Method == "notifications/subscriptions/acknowledged":
			return 0
		case msg.Error != nil:
			return msg.Error.Code
		}
	}
	t.Fatalf("the listen of %s ended with neither an acknowledgement nor an error (status %d, %v)", uri, resp.StatusCode, sc.Err())
	return 0
}

// A server's log message during a client's call goes to that client alone;
// one outside any call goes to the clients that reach the server: alice,
// allowed nothing of notes, never reads what notes logs of bob's call
// (his arguments), nor what it logs on its own; dave, allowed one of its
// resources, reads only the latter. A client reads the messages of one
// stream in order, so the first it reads says what it was sent before.
func TestAServersLogGoesOnlyToTheClientsItBelongsTo(t *testing.T) {
	notes, github := newNotes(t, "notes"), newUpstream(t, "github")
	g := start(t, []config.Server{notes.config(), github.config(true)}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice", Allow: []string{"github_*"}},
			"bob":   {Token: "tok-bob"},
			"dave":  {Token: "tok-dave", Allow: []string{"github_*", "notes_payroll"}},
			"carol": {Token: "tok-carol"},
		},
	})
	url, _ := serve(t, g)
	ctx := t.Context()
	logs := map[string]chan string{}
	sessions := map[string]*mcp.ClientSession{}
	for _, name := range []string{"alice", "bob", "dave"} {
		got := make(chan string, 16)
		logs[name] = got
		sessions[name] = connect(t, url, versions[1], &mcp.ClientOptions{
			LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { got <- fmt.Sprint(r.Params.Data) },
		}, bearer("tok-"+name))
		if err := sessions[name].SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	addNote := func(cs *mcp.ClientSession, text string, meta mcp.Meta) {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "notes_add_note", Arguments: map[string]any{"text": text}, Meta: meta}); err != nil {
			t.Fatal(err)
		}
	}
	addNote(sessions["bob"], "bob's salary", nil)
	if m := <-logs["bob"]; m != "adding: bob's salary" {
		t.Fatalf("bob's call logged %q", m)
	}
	// A 2026-07-28 client asks for the log of its call in the call's _meta,
	// and reads it on the call's stream, before the result.
	req := newCall(t, ctx, url, callRequest{name: "notes_add_note", params: `"arguments":{"text":"carol's salary"},`,
		meta:    `"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"carol","version":"1"},`,
		headers: map[string]string{"Authorization": "Bearer tok-carol"}})
	if got, want := streamed(t, req), []string{"notifications/message adding: carol's salary", "result"}; !slices.Equal(got, want) {
		t.Errorf("carol's call streamed %q, want %q", got, want)
	}
	// Then each server logs outside any call, and pings the gateway,
	// which answers once it has handled what came before.
	for _, up := range []struct {
		name string
		srv  *mcp.Server
	}{{"notes", notes.srv}, {"github", github.srv}} {
		name, srv := up.name, up.srv
		for ss := range srv.Sessions() {
			if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: name + " is idle"}); err != nil {
				t.Fatal(err)
			}
			if err := ss.Ping(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, want := range map[string][]string{
		"alice": {"github is idle"},
		"bob":   {"notes is idle", "github is idle"},
		"dave":  {"notes is idle", "github is idle"},
	} {
		for _, w := range want {
			if m := <-logs[name]; m != w {
				t.Errorf("%s read %q, want %q", name, m, w)
				break
			}
		}
	}
}

// streamed sends req and returns what its answer streamed, in order: each
// notification's method (with a log message's data), then "result" or
// "error".
func streamed(t *testing.T, req *http.Request) []string {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var msg struct {
			Method string
			Params struct{ Data any }
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		switch {
		case msg.Method == "notifications/message":
			got = append(got, fmt.Sprint(msg.Method, " ", msg.Params.Data))
		case msg.Method != "":
			got = append(got, msg.Method)
		case msg.Result != nil:
			got = append(got, "result")
		default:
			got = append(got, "error "+string(msg.Error))
		}
	}
	return got
}
