package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// A client's own policy hides its denied tools: they are neither listed
// nor found, and a call of one is refused as a call of a tool that does not
// exist, word for word, so that nothing tells the client it exists or what
// its policy says.
func TestAClientsOwnPolicyHidesAndRefusesItsDeniedTools(t *testing.T) {
	a := newUpstream(t, "a")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{Clients: map[string]gateway.Client{
		"alice": {Token: "tok-alice"},
		"bob":   {Token: "tok-bob", Deny: []string{"echo"}},
	}})
	url, _ := serve(t, g)
	call := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return "error: " + err.Error()
		}
		return text(t, res)
	}
	// The answer for name, with the name taken out.
	unnamed := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		return strings.ReplaceAll(call(cs, name, args), name, "NAME")
	}
	for _, v := range versions {
		alice := connect(t, url, v, nil, &http.Client{Transport: oauthtest.Bearer("tok-alice")})
		bob := connect(t, url, v, nil, &http.Client{Transport: oauthtest.Bearer("tok-bob")})
		if names := toolNames(t, alice); !slices.Contains(names, "a_echo") {
			t.Errorf("%s: alice is not shown a_echo: %v", v, names)
		}
		if names := toolNames(t, bob); slices.Contains(names, "a_echo") || !slices.Contains(names, "a_block") {
			t.Errorf("%s: bob's tools: %v, want all but a_echo", v, names)
		}
		if got := call(alice, "a_echo", map[string]any{"text": "x"}); got != "a: x" {
			t.Errorf("%s: alice's call: %q", v, got)
		}
		denied, unknown := unnamed(bob, "a_echo", map[string]any{"text": "x"}), unnamed(bob, "a_nothing", map[string]any{"text": "x"})
		if denied != unknown || strings.Contains(denied, "polic") {
			t.Errorf("%s: bob's call of a_echo: %q; want it as of a tool that does not exist: %q", v, denied, unknown)
		}
	}
	// Through progressive disclosure alike.
	bob := connect(t, url+"?disclosure=1", versions[0], nil, &http.Client{Transport: oauthtest.Bearer("tok-bob")})
	if got := call(bob, gateway.FindToolsName, map[string]any{"query": "echo text"}); strings.Contains(got, "a_echo") {
		t.Errorf("find_tools shows bob a_echo: %s", got)
	}
	for _, name := range []string{"a_echo", "mcp__a__echo"} {
		denied := strings.ReplaceAll(call(bob, gateway.CallToolName, map[string]any{"name": name, "arguments": map[string]any{"text": "x"}}), name, "NAME")
		unknown := strings.ReplaceAll(call(bob, gateway.CallToolName, map[string]any{"name": "a_nothing", "arguments": map[string]any{"text": "x"}}), "a_nothing", "NAME")
		if denied != unknown || strings.Contains(denied, "polic") {
			t.Errorf("call_tool of %s for bob: %q; want it as of a tool that does not exist: %q", name, denied, unknown)
		}
	}
}

// Each client has its own bucket, refilled as time passes: alice may burst
// twice, then once a second; bob's limit is lifted.
func TestRateLimitsAreAClientsOwnAndRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{
			RateLimit: &gateway.RateLimit{Rate: 1, Burst: 2},
			Clients: map[string]gateway.Client{
				"alice": {Token: "tok-alice"},
				"bob":   {Token: "tok-bob", RateLimit: &gateway.RateLimit{Rate: -1, Burst: 0}},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		h := g.Handler()
		limited := func(token string) (bool, string) {
			rec := listTools(h, token)
			if rec.Code != 200 {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			_, data, _ := strings.Cut(rec.Body.String(), "data: ")
			var msg struct {
				Error *struct {
					Code    int
					Message string
					Data    struct{ RetryAfter float64 }
				}
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &msg); err != nil {
				t.Fatalf("%v: %s", err, rec.Body)
			}
			if msg.Error == nil {
				return false, ""
			}
			if msg.Error.Code != gateway.CodeRateLimited || msg.Error.Data.RetryAfter <= 0 {
				t.Errorf("refusal: %+v", msg.Error)
			}
			return true, msg.Error.Message
		}
		for i := range 2 {
			if over, _ := limited("tok-alice"); over {
				t.Errorf("alice's request %d refused within her burst", i+1)
			}
		}
		over, msg := limited("tok-alice")
		if want := `rate limit exceeded for client "alice" (1 requests a second, bursts of 2): retry in 1s`; !over || msg != want {
			t.Errorf("alice's third request: %v %q, want %q", over, msg, want)
		}
		for i := range 5 {
			if over, _ := limited("tok-bob"); over {
				t.Errorf("bob's request %d refused: his limit is lifted", i+1)
			}
		}
		time.Sleep(time.Second)
		if over, _ := limited("tok-alice"); over {
			t.Error("alice's request a second later refused")
		}
		if over, _ := limited("tok-alice"); !over {
			t.Error("alice's second request a second later taken: one token came back, not two")
		}
	})
}

// A client's handshake is not a request of its rate limit: whatever it
// says to connect (initialize, server/discover, the listen it opens), a
// burst of 2 serves its first two calls, and refuses the third.
func TestRateLimitLeavesTheHandshakeOut(t *testing.T) {
	up := newUpstream(t, "a")
	for _, version := range versions {
		t.Run(version, func(t *testing.T) {
			g := start(t, []config.Server{up.config(true)}, &gateway.Options{RateLimit: &gateway.RateLimit{Rate: 0.001, Burst: 2}})
			url, _ := serve(t, g)
			cs := connect(t, url, version, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}}, nil)
			for i := range 2 {
				if _, err := cs.ListTools(t.Context(), nil); err != nil {
					t.Fatalf("call %d of a burst of 2: %v", i+1, err)
				}
			}
			var werr *jsonrpc.Error
			if _, err := cs.ListTools(t.Context(), nil); !errors.As(err, &werr) || werr.Code != gateway.CodeRateLimited {
				t.Fatalf("call 3 of a burst of 2: %v, want it refused", err)
			}
		})
	}
	t.Run("stdio", func(t *testing.T) {
		g := start(t, []config.Server{up.config(true)}, &gateway.Options{RateLimit: &gateway.RateLimit{Rate: 0.001, Burst: 2}})
		clientSide, serverSide := mcp.NewInMemoryTransports()
		served := make(chan error, 1)
		go func() { served <- g.Run(t.Context(), serverSide) }()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "host"}, nil).Connect(t.Context(), clientSide, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if _, err := cs.ListTools(t.Context(), nil); err != nil {
				t.Fatalf("call %d of a burst of 2: %v", i+1, err)
			}
		}
		var werr *jsonrpc.Error
		if _, err := cs.ListTools(t.Context(), nil); !errors.As(err, &werr) || werr.Code != gateway.CodeRateLimited {
			t.Errorf("call 3 of a burst of 2: %v, want it refused", err)
		}
		cs.Close()
		<-served
	})
}

func TestStartRefusesANegativeBurst(t *testing.T) {
	_, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"alice": {RateLimit: &gateway.RateLimit{Rate: 1, Burst: -1}},
		},
	})
	if err == nil || !strings.Contains(err.Error(), `Clients["alice"].RateLimit: burst -1`) {
		t.Errorf("Start: %v", err)
	}
}

// Start refuses clients it could not tell apart, or whose patterns it
// cannot read, naming the client, before any server starts.
func TestStartRefusesClientsItCannotTellApart(t *testing.T) {
	for _, c := range []struct {
		name    string
		clients map[string]gateway.Client
		want    string
	}{
		{"a client without a name", map[string]gateway.Client{"": {Allow: []string{"a_*"}}}, `Clients[""]: a client needs a name`},
		{"two clients of one token", map[string]gateway.Client{"alice": {Token: "tok"}, "bob": {Token: "tok"}}, `Clients["bob"]: the token of Clients["alice"] too`},
		{"a pattern that is none", map[string]gateway.Client{"alice": {Deny: []string{"a_["}}}, `Clients["alice"]: policy: deny pattern "a_["`},
		{"a negative burst of the gateway's", nil, `RateLimit: burst -2`},
	} {
		o := &gateway.Options{Clients: c.clients}
		if c.clients == nil {
			o.RateLimit = &gateway.RateLimit{Rate: 1, Burst: -2}
		}
		_, err := gateway.Start(t.Context(), &config.Config{Servers: []config.Server{{Name: "never", Command: "/nonexistent", Required: true}}}, o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
