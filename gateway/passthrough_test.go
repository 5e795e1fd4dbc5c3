package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

// A client's token reaches only the server the config names for it, and
// only on that client's requests.
func TestTokenPassthroughIsPerServerAndOptIn(t *testing.T) {
	a, b := newUpstream(t, "a"), newUpstream(t, "b")
	g := start(t, []config.Server{a.config(true), b.config(true)}, &gateway.Options{
		Passthrough: []string{"b"},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
		},
	})
	url, _ := serve(t, g)
	for _, v := range versions {
		cs := connect(t, url, v, nil, &http.Client{Transport: oauthtest.Bearer("tok-alice")})
		for _, name := range []string{"a_echo", "b_echo"} {
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}}); err != nil {
				t.Fatalf("%s %s: %v", v, name, err)
			}
		}
	}
	count := func(u *upstream) (with, without int) {
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, h := range u.auth {
			switch h {
			case "":
				without++
			case "Bearer tok-alice":
				with++
			default:
				t.Errorf("server %s was sent Authorization %q", u.name, h)
			}
		}
		return with, without
	}
	if with, _ := count(a); with != 0 {
		t.Errorf("server a, not named, was sent alice's token %d times", with)
	}
	if with, without := count(b); with != 2 || without == 0 {
		t.Errorf("server b was sent alice's token %d times (want 2: her calls), and %d requests without (want the gateway's own)", with, without)
	}
}

func TestStartRefusesAPassthroughItCannotHonour(t *testing.T) {
	a := newUpstream(t, "a")
	withHeader := a.config(true)
	withHeader.Headers = map[string]string{"authorization": "Bearer gateway's own"}
	for _, c := range []struct {
		sc   config.Server
		name string
		want string
	}{
		{a.config(true), "b", `no server is named "b"`},
		{config.Server{Name: "a", Command: "true"}, "a", `server "a" is not reached over HTTP`},
		{withHeader, "a", `server "a" has credentials of its own`},
	} {
		_, err := gateway.Start(t.Context(), &config.Config{Servers: []config.Server{c.sc}}, &gateway.Options{Passthrough: []string{c.name}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
