package sdkfix

// go-sdk's server, as package gateway serves many clients with it.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gateway/subscriptions.go: go-sdk calls the unsubscribe handler for any
// session's resources/unsubscribe, one that never subscribed too, so the
// gateway keeps which sessions subscribed rather than a count.
func TestGoSDKUnsubscribesAnySession(t *testing.T) {
	unsubscribed := 0
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { unsubscribed++; return nil },
	})
	s.AddResource(&mcp.Resource{URI: "note://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "note://a"}); err != nil {
		t.Fatal(err)
	}
	if unsubscribed != 1 {
		t.Fatalf(upgraded+"the unsubscribe handler is not called for a session that never subscribed (%d calls): gateway/subscriptions.go may count subscribers", unsubscribed)
	}
}

// gateway/lanes.go: go-sdk's streamable HTTP server writes a message to a
// client's stream on the goroutine that sends it (ServerSession.Log here),
// so a client that does not read would hold that goroutine; the gateway
// hands go-sdk a writer that queues.
func TestGoSDKWritesToAStreamAsItSends(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	send := func(method, session, body string, w http.ResponseWriter, ctx context.Context) http.Header {
		req := httptest.NewRequestWithContext(ctx, method, "/", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		h.ServeHTTP(w, req)
		return w.Header()
	}
	ctx := context.Background()
	session := send(http.MethodPost, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		httptest.NewRecorder(), ctx).Get("Mcp-Session-Id")
	send(http.MethodPost, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, httptest.NewRecorder(), ctx)
	send(http.MethodPost, session, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, httptest.NewRecorder(), ctx)
	stream := &stackWriter{ResponseRecorder: httptest.NewRecorder(), opened: make(chan struct{}), wrote: make(chan string, 1)}
	getCtx, cancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		send(http.MethodGet, session, "", stream, getCtx)
	}()
	defer func() { cancel(); <-served; send(http.MethodDelete, session, "", httptest.NewRecorder(), ctx) }()
	<-stream.opened
	var ss *mcp.ServerSession
	for s := range s.Sessions() {
		ss = s
	}
	if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	if stack := <-stream.wrote; !strings.Contains(stack, "(*ServerSession).Log") {
		t.Fatalf(upgraded+"a message is written to its stream apart from the goroutine that sends it: gateway/lanes.go may go\n%s", stack)
	}
}

// A stackWriter tells when its stream is opened (go-sdk's first write,
// ": ok"), and the stack of the goroutine of the write after.
type stackWriter struct {
	*httptest.ResponseRecorder
	mu     sync.Mutex
	writes int
	opened chan struct{}
	wrote  chan string
}

func (w *stackWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	switch w.writes {
	case 1:
		close(w.opened)
	case 2:
		buf := make([]byte, 64<<10)
		w.wrote <- string(buf[:runtime.Stack(buf, false)])
	}
	return w.ResponseRecorder.Write(p)
}

// gateway/passon.go: go-sdk's client hands a server's notifications to
// their handler one at a time, and reads on while the handler works,
// queueing them without bound: a server is never held by a slow handler,
// so the gateway's handlers only queue, bounded, for a goroutine of its
// own to pass on.
func TestGoSDKQueuesNotificationsWithoutBound(t *testing.T) {
	release := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { <-release },
	}).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer close(release)
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	sent := make(chan error, 1)
	go func() {
		for range 1000 {
			if err := ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "error", Data: strings.Repeat("x", 1<<10)}); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bound):
		t.Fatal(upgraded + "the client stops reading while a notification's handler works: gateway/passon.go's queue may go")
	}
}

// gateway/relay.go: go-sdk's server keeps a session's list-change
// subscriptions (subscriptions/listen, 2026-07-28) by session alone, and
// forgets them all when any listen of the session ends: over a connection
// that carries several listens (stdio), the end of a resource's listen,
// which go-sdk's client opens for Subscribe and ends for Unsubscribe,
// ends the notices of the client's own listen for list changes. The
// gateway never unsubscribes such a server.
func TestGoSDKForgetsAListenWhenAnotherEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		prompt := func(name string) (*mcp.Prompt, mcp.PromptHandler) {
			return &mcp.Prompt{Name: name}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
		}
		// The server's listen for the resource starts and ends on goroutines
		// of its own: the test waits for each, since a cancellation that
		// overtakes its listen's start leaves that listen open for ever.
		subscribed, unsubscribed := make(chan struct{}, 1), make(chan struct{}, 1)
		s := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { subscribed <- struct{}{}; return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { unsubscribed <- struct{}{}; return nil },
		})
		s.AddPrompt(prompt("a"))
		s.AddResource(&mcp.Resource{URI: "note://a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return nil, nil
		})
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		var changed atomic.Int32
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed.Add(1) },
		}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		change := func(name string) int32 {
			s.AddPrompt(prompt(name))
			time.Sleep(time.Second) // go-sdk tells of a change after 10ms
			synctest.Wait()
			return changed.Load()
		}
		if n := change("b"); n != 1 {
			t.Fatalf("the client's listen was told of %d changes, want 1", n)
		}
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "note://a"}); err != nil {
			t.Fatal(err)
		}
		<-subscribed
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "note://a"}); err != nil {
			t.Fatal(err)
		}
		<-unsubscribed
		synctest.Wait() // the listen's end forgets the session's listens after it unsubscribes
		if n := change("c"); n != 1 {
			t.Fatalf(upgraded+"a session's list-change listen outlives the end of another listen (%d changes told): gateway/relay.go may unsubscribe every server", n)
		}
	})
}
