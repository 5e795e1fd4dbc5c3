package auth

import (
	"net/url"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/oauthtest"
	"github.com/mcpbridge/mcpbridge/internal/oteltest"
)

// A token request is a client span in the trace of the request it serves,
// saying the step, the grant and the endpoint, and nothing else: no
// credential and no token. A refused one says the OAuth error code.
func TestTokenRequestSpan(t *testing.T) {
	rec := oteltest.New(t)
	ts := oauthtest.New(t, oauthtest.Config{Clients: map[string]string{"svc": "s3cr3t"}})
	for _, secret := range []string{"s3cr3t", "wrong"} {
		h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientSecretPost("svc", secret)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, host := rec.Traces.Tracer("test").Start(t.Context(), "host "+secret)
		_, err = ts.Call(ctx, h, nil, "echo")
		host.End()
		if (err == nil) != (secret == "s3cr3t") {
			t.Fatalf("secret %s: %v", secret, err)
		}
	}
	spans := rec.Named("oauth_token")
	if len(spans) != 2 {
		t.Fatalf("spans %v", oteltest.Names(rec.Spans()))
	}
	u, _ := url.Parse(ts.URL)
	want := map[string]string{"mcpbridge.oauth.step": StepTokenRequest, "mcpbridge.oauth.grant_type": GrantClientCredentials, "server.address": u.Hostname(), "server.port": u.Port()}
	for i, s := range spans {
		oteltest.ChildOf(t, s, rec.Span(t, []string{"host s3cr3t", "host wrong"}[i]))
		oteltest.Has(t, s, want)
		if got := oteltest.Attrs(s); i == 0 && len(got) != len(want) {
			t.Errorf("attributes %v; want only %v", got, want)
		}
	}
	oteltest.Has(t, spans[1], map[string]string{"error.type": "invalid_client"})
}
