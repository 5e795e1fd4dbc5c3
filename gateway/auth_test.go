package gateway_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

// listTools sends h a stateless (2026-07-28) tools/list with token, in
// memory, and returns the answer; a context given is the request's.
func listTools(h http.Handler, token string, ctx ...context.Context) *httptest.ResponseRecorder {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	req := httptest.NewRequest("POST", "http://127.0.0.1/mcp", strings.NewReader(body))
	for _, c := range ctx {
		req = req.WithContext(c)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The gateway takes only the issuer's JWTs, in date and for itself, with the
// scopes it requires, and says why it refuses one as RFC 6750 asks. The
// issuer and the gateway are in memory, in a bubble whose clock the test
// moves.
func TestOAuthTakesOnlyTheIssuersTokensForTheGateway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n oauthtest.Network
		issuer := n.Start(oauthtest.Config{JWT: true})
		const resource = "https://gateway.example/mcp"
		g, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{OAuth: &gateway.OAuth{
			Issuer: issuer.URL, Resource: resource, Scopes: []string{"mcp:tools"}, HTTPClient: n.Client(),
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		h := g.Handler()
		token := func(change map[string]any) string {
			c := map[string]any{"iss": issuer.URL, "sub": "ada", "client_id": "desk", "aud": resource, "scope": "mcp:tools other",
				"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
			maps.Copy(c, change)
			return issuer.Mint(c)
		}
		const meta = `resource_metadata="https://gateway.example/.well-known/oauth-protected-resource/mcp"`
		for _, c := range []struct {
			name, token string
			status      int
			challenge   string // what WWW-Authenticate holds
		}{
			{"valid", token(nil), 200, ""},
			{"aud with a trailing slash", token(map[string]any{"aud": []string{"https://other.example", resource + "/"}}), 200, ""},
			{"within the leeway", token(map[string]any{"exp": time.Now().Add(-20 * time.Second).Unix()}), 200, ""},
			{"no token", "", 401, `Bearer ` + meta + `, scope="mcp:tools"`},
			{"expired", token(map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}), 401, `error="invalid_token", error_description="expired", ` + meta},
			{"not yet valid", token(map[string]any{"nbf": time.Now().Add(time.Hour).Unix()}), 401, `error_description="not valid yet"`},
			{"no exp", token(map[string]any{"exp": nil}), 401, `error_description="no exp claim"`},
			{"wrong audience", token(map[string]any{"aud": "https://other.example/mcp"}), 401, `error_description="its audience is not this gateway"`},
			{"wrong issuer", token(map[string]any{"iss": "https://evil.example"}), 401, `error_description="issued by another authorization server"`},
			{"not a JWT", "at-1", 401, `error="invalid_token"`},
			{"missing scope", token(map[string]any{"scope": "other"}), 403, `Bearer error="insufficient_scope", error_description="the token lacks the scope mcp:tools", ` + meta + `, scope="mcp:tools"`},
		} {
			rec := listTools(h, c.token)
			if rec.Code != c.status || !strings.Contains(rec.Header().Get("WWW-Authenticate"), c.challenge) {
				t.Errorf("%s: %d %q, want %d with %q", c.name, rec.Code, rec.Header().Get("WWW-Authenticate"), c.status, c.challenge)
			}
		}

		// A rotation: the new key is not known until the keys are fetched
		// again, which a token with an unknown kid prompts at most every
		// 30 seconds, so that made-up kids cannot make the gateway hammer
		// the issuer.
		fetches := func(want int) {
			t.Helper()
			if got := issuer.Served("/jwks"); got != want {
				t.Errorf("the keys were fetched %d times, want %d", got, want)
			}
		}
		fetches(1)
		issuer.Rotate()
		rotated := token(nil)
		if rec := listTools(h, rotated); rec.Code != 401 {
			t.Errorf("a token of a key newer than the keys fetched: %d, want 401 until the next fetch", rec.Code)
		}
		time.Sleep(31 * time.Second)
		if rec := listTools(h, rotated); rec.Code != 200 {
			t.Errorf("a token of the new key 31s later: %d, want 200", rec.Code)
		}
		fetches(2)
		var elsewhere oauthtest.Network
		stranger := elsewhere.Start(oauthtest.Config{JWT: true})
		for range 3 {
			stranger.Rotate() // its kid, key-3, is none of the issuer's
		}
		forged := stranger.Mint(map[string]any{"iss": issuer.URL, "sub": "ada", "aud": resource, "scope": "mcp:tools", "exp": time.Now().Add(time.Hour).Unix()})
		for range 3 {
			if rec := listTools(h, forged); rec.Code != 401 {
				t.Errorf("a token of a key the issuer does not list: %d, want 401", rec.Code)
			}
		}
		fetches(2)
		time.Sleep(31 * time.Second)
		listTools(h, forged)
		fetches(3)
	})
}

func TestOAuthServesProtectedResourceMetadata(t *testing.T) {
	g := start(t, nil, &gateway.Options{
		OAuth: &gateway.OAuth{Issuer: "https://auth.example", Resource: "https://gateway.example/mcp", Scopes: []string{"mcp:tools"}},
	})
	_, srv := serve(t, g)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var meta map[string]any
		json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if resp.StatusCode != 200 || meta["resource"] != "https://gateway.example/mcp" || meta["authorization_servers"].([]any)[0] != "https://auth.example" {
			t.Errorf("%s: %d %v", path, resp.StatusCode, meta)
		}
	}
}

func TestStartRefusesAnOAuthItCannotUse(t *testing.T) {
	for _, c := range []struct {
		o    gateway.OAuth
		want string
	}{
		{gateway.OAuth{Resource: "https://gateway.example/mcp"}, "OAuth.Issuer is required"},
		{gateway.OAuth{Issuer: "https://auth.example"}, "OAuth.Resource is required"},
		{gateway.OAuth{Issuer: "https://auth.example", Resource: "http://gateway.example/mcp"}, "want an absolute https URL"},
		{gateway.OAuth{Issuer: "https://auth.example", Resource: "https://gateway.example/mcp#top"}, "without a fragment"},
	} {
		if _, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{OAuth: &c.o}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// A client that knows nothing but the gateway's URL finds the issuer through
// the gateway's 401 and metadata, gets a JWT for the gateway, and calls a
// tool; the token goes no further than the gateway.
func TestAnOAuthClientFindsTheIssuerThroughTheGateway(t *testing.T) {
	a := newUpstream(t, "a")
	issuer := oauthtest.New(t, oauthtest.Config{JWT: true, Clients: map[string]string{"svc": "s3cret"}})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	issuer.AddResource(srv.URL + "/mcp")
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{OAuth: &gateway.OAuth{Issuer: issuer.URL, Resource: srv.URL + "/mcp"}})
	mux.Handle("/", g.Handler())
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "svc", Secret: "s3cret", Method: "client_secret_basic"}, Options: oauth.Options{Issuer: issuer.URL}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "svc"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", OAuthHandler: h}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "hi"}})
		cs.Close()
		if err != nil || text(t, res) != "a: hi" {
			t.Fatalf("%s: %v %v", v, res, err)
		}
	}
	if issuer.Tokens.Load() == 0 {
		t.Error("the issuer issued no token")
	}
	if sent := a.authorizations(); len(sent) > 0 {
		t.Errorf("the server was sent Authorization %q", sent)
	}
}

// authorizations are the Authorization headers u was sent, but empty ones.
func (u *upstream) authorizations() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, h := range u.auth {
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}
