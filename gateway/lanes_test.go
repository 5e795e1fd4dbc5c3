package gateway_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// victimSteps is how many progress reports the steps tool of a chatty
// server makes.
const victimSteps = 10

// A chattyServer is an upstream server (protocol 2025-11-25, with
// sessions) that says much: its tool steps reports its progress
// victimSteps times, each report followed by a ping (a client handles what
// a server sends in order, so the ping's answer says that the report was
// handled before the call's answer); chatter reports its progress n times
// with a message of size bytes, tells sent, and waits for its call to
// end; flood logs.
type chattyServer struct {
	srv  *mcp.Server
	url  string
	sent chan struct{}
}

func newChatty(t testing.TB) *chattyServer {
	t.Helper()
	c := &chattyServer{sent: make(chan struct{}, 4)}
	c.srv = mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1"}, nil)
	mcp.AddTool(c.srv, &mcp.Tool{Name: "steps"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		token := req.Params.GetProgressToken()
		for i := 1; token != nil && i <= victimSteps; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: victimSteps}); err != nil {
				return nil, nil, err
			}
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	type chatterIn struct {
		N    int `json:"n"`
		Size int `json:"size"`
	}
	mcp.AddTool(c.srv, &mcp.Tool{Name: "chatter"}, func(ctx context.Context, req *mcp.CallToolRequest, in chatterIn) (*mcp.CallToolResult, any, error) {
		msg := strings.Repeat("x", in.Size)
		for i := range in.N {
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Message: msg})
		}
		c.sent <- struct{}{}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return c.srv }, nil))
	t.Cleanup(h.Close)
	c.url = h.URL
	return c
}

// flood logs n messages of size bytes at level debug to the gateway.
func (c *chattyServer) flood(t testing.TB, n, size int) {
	t.Helper()
	data := strings.Repeat("x", size)
	for ss := range c.srv.Sessions() {
		for range n {
			if err := ss.Log(t.Context(), &mcp.LoggingMessageParams{Level: "debug", Data: data}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// victimsProgress is how many progress reports a client of 2026-07-28
// reads on the stream of its call of steps, before the result: bounded, so
// that a gateway that stalls fails the test rather than hanging it.
func victimsProgress(t *testing.T, url string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	got := streamed(t, newCall(t, ctx, url, callRequest{name: "chatty_steps", params: `"arguments":{},`,
		meta: `"progressToken":"victim","io.modelcontextprotocol/clientInfo":{"name":"victim","version":"1"},`}))
	n := 0
	for _, m := range got {
		if m == "notifications/progress" {
			n++
		}
	}
	return n
}

// A client that does not read stalls no other, in either of the two ways
// that did: (a) a 2025-11-25 session that asks for the log at debug level
// and never reads its event stream while the server floods it, (b) a
// 2026-07-28 call with a progress token whose answer is never read while
// the server reports its progress. The gateway writes to each client
// through a queue of its own: the attacker fills its queue and loses its
// stream, logged; the victim's calls get all their progress, as before the
// attack, and a session its notifications.
func TestAClientThatDoesNotReadStallsNoOther(t *testing.T) {
	for _, attack := range []string{"session", "call"} {
		t.Run(attack, func(t *testing.T) {
			chatty := newChatty(t)
			logged := make(fellBehind, 1)
			g := start(t, []config.Server{{Name: "chatty", URL: chatty.url, Required: true}}, &gateway.Options{
				Logger: slog.New(logged),
				Limits: gateway.Limits{ClientQueueBytes: 64 << 10},
			})
			url, _ := serve(t, g)
			if n := victimsProgress(t, url); n != victimSteps {
				t.Fatalf("before the attack, the victim's call got %d/%d progress reports", n, victimSteps)
			}
			var attacker *hostile.Stall
			switch attack {
			case "session":
				attacker = hostile.StallSession(t, url, "", "debug")
				chatty.flood(t, 4000, 4<<10) // 16 MiB
			case "call":
				attacker = hostile.StallCall(t, url, "", "chatty_chatter", map[string]any{"n": 4000, "size": 4 << 10})
				<-chatty.sent
			}
			n := victimsProgress(t, url)
			t.Logf("while the attacker stalls, the victim's call got %d/%d progress reports", n, victimSteps)
			if n != victimSteps {
				t.Fatalf("while the attacker stalls, the victim's call got %d/%d progress reports", n, victimSteps)
			}
			// A session's notifications come as before: a tool listed anew.
			changed := make(chan struct{}, 1)
			connect(t, url, versions[1], &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case changed <- struct{}{}:
					default:
					}
				},
			}, nil)
			mcp.AddTool(chatty.srv, &mcp.Tool{Name: "fresh_" + attack}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			<-changed
			attacker.Ended() // the gateway cut its stream: reading ends
			<-logged         // and said so
		})
	}
}

// fellBehind is a slog.Handler that receives once the gateway logs that a
// client fell behind.
type fellBehind chan struct{}

func (h fellBehind) Enabled(context.Context, slog.Level) bool { return true }
func (h fellBehind) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h fellBehind) WithGroup(string) slog.Handler            { return h }
func (h fellBehind) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "gateway: a client fell behind: its stream is closed" {
		select {
		case h <- struct{}{}:
		default:
		}
	}
	return nil
}

// The queues' bounds protect the gateway: a negative one is refused,
// naming it.
func TestStartRefusesANegativeQueueBound(t *testing.T) {
	for _, c := range []struct {
		limits gateway.Limits
		want   string
	}{
		{gateway.Limits{ClientQueueBytes: -1}, "Limits.ClientQueueBytes -1"},
		{gateway.Limits{ServerQueueBytes: -2}, "Limits.ServerQueueBytes -2"},
	} {
		_, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{Limits: c.limits})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start with %+v: %v", c.limits, err)
		}
	}
}
