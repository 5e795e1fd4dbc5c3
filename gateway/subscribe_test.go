package gateway_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A notesServer is an upstream server (protocol 2025-11-25, with
// sessions) of every primitive, which counts the subscriptions and
// unsubscriptions it is sent: the tool add_note, which logs its text
// during the call (then pings the client, so that the message is handled
// before the call's answer); the resource note://payroll, which may be subscribed
// to; the template note://notes/{id}; the prompt summarize; completions.
type notesServer struct {
	name string
	srv  *mcp.Server
	url  string

	mu           sync.Mutex
	subscribes   int
	unsubscribes int
	unsubscribed chan struct{} // a receive for each unsubscription
}

func newNotes(t *testing.T, name string) *notesServer {
	t.Helper()
	s := &notesServer{name: name, unsubscribed: make(chan struct{}, 8)}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		Instructions: "Keep notes with " + name + ".",
		SubscribeHandler: func(context.Context, *mcp.SubscribeRequest) error {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.subscribes++
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error {
			s.mu.Lock()
			s.unsubscribes++
			s.mu.Unlock()
			s.unsubscribed <- struct{}{}
			return nil
		},
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"from " + name}}}, nil
		},
	})
	type note struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s.srv, &mcp.Tool{Name: "add_note"}, func(ctx context.Context, req *mcp.CallToolRequest, in note) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "adding: " + in.Text})
		// A client handles what a server sends in order: the answer to a
		// ping says that the message was handled before the call's answer.
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil, nil
	})
	s.srv.AddResource(&mcp.Resource{URI: "note://payroll", Name: "payroll"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "salaries"}}}, nil
	})
	s.srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "note://notes/{id}", Name: "note"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "a note"}}}, nil
	})
	s.srv.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "topic"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "summarize"}}}}, nil
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, nil))
	t.Cleanup(h.Close)
	s.url = h.URL
	return s
}

func (s *notesServer) config() config.Server {
	return config.Server{Name: s.name, URL: s.url, Required: true}
}

// counts are how many subscriptions and unsubscriptions the server was
// sent.
func (s *notesServer) counts() (subscribes, unsubscribes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subscribes, s.unsubscribes
}

// Each client's subscriptions are its own: alice's unsubscribe of a
// resource she never subscribed to, or subscribed to and left, does not
// end bob's; the server is told to unsubscribe when the last subscriber
// leaves, by unsubscribing or by ending its session.
func TestASubscriptionIsItsClientsOwn(t *testing.T) {
	notes := newNotes(t, "notes")
	g := start(t, []config.Server{notes.config()}, nil)
	url, _ := serve(t, g)
	ctx := t.Context()
	payroll := "note://payroll"
	updated := make(chan string, 8)
	bob := connect(t, url, versions[1], &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	}, nil)
	alice := connect(t, url, versions[1], nil, nil)

	// A 2026-07-28 client subscribes for as long as it listens.
	carol := listen(t, url, payroll)

	if err := bob.Subscribe(ctx, &mcp.SubscribeParams{URI: payroll}); err != nil {
		t.Fatal(err)
	}
	if err := alice.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: payroll}); err != nil {
		t.Fatalf("alice's unsubscribe of what she never subscribed to: %v", err)
	}
	if _, n := notes.counts(); n != 0 {
		t.Fatalf("alice, who never subscribed, unsubscribed the gateway: the server was sent %d unsubscriptions", n)
	}
	if err := alice.Subscribe(ctx, &mcp.SubscribeParams{URI: payroll}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second is hers no more than the first
		if err := alice.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: payroll}); err != nil {
			t.Fatal(err)
		}
	}
	if _, n := notes.counts(); n != 0 {
		t.Fatalf("alice's leaving unsubscribed bob and carol: the server was sent %d unsubscriptions", n)
	}
	if err := notes.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: payroll}); err != nil {
		t.Fatal(err)
	}
	if got := <-updated; got != payroll {
		t.Errorf("bob was told of %q", got)
	}

	// The last subscribers leave, carol by ending her listen, bob by
	// ending his session: the server is told once.
	if err := carol.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: payroll}); err != nil {
		t.Fatal(err)
	}
	bob.Close()
	<-notes.unsubscribed
	if subs, unsubs := notes.counts(); unsubs != 1 || subs < 1 {
		t.Errorf("the server was sent %d subscriptions and %d unsubscriptions, want one unsubscription once everyone left", subs, unsubs)
	}
}

// listen connects a client of 2026-07-28 to url that subscribes to uri:
// go-sdk's Subscribe opens a subscriptions/listen and returns once the
// gateway acknowledged it; the listen goes on until Unsubscribe.
func listen(t *testing.T, url, uri string) *mcp.ClientSession {
	t.Helper()
	cs := connect(t, url, versions[0], nil, nil)
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	return cs
}

// A 2026-07-28 client's subscription ends with its listen, whose context
// is done by the time go-sdk unsubscribes it: the server is told all the
// same.
func TestAListensEndUnsubscribesTheServer(t *testing.T) {
	notes := newNotes(t, "notes")
	g := start(t, []config.Server{notes.config()}, nil)
	url, _ := serve(t, g)
	carol := listen(t, url, "note://payroll")
	if err := carol.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: "note://payroll"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-notes.unsubscribed:
	case <-time.After(30 * time.Second): // a bound on a failure, not a wait for success
		t.Fatal("the listen ended and the server was never told to unsubscribe")
	}
}
