package oauth

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/oteltest"
	"go.opentelemetry.io/otel"
)

// A token request is a client span in the trace of the request it serves,
// saying the step, the grant and the endpoint, and nothing else: no
// credential and no token. A refused one says the OAuth error code.
func TestTokenRequestSpan(t *testing.T) {
	rec := oteltest.New(t)
	ts := oauthtest.New(t, oauthtest.Config{Clients: map[string]string{"svc": "s3cr3t"}})
	for _, secret := range []string{"s3cr3t", "wrong"} {
		h, err := NewClientCredentials(ClientCredentialsConfig{Client: ClientAuth{ID: "svc", Secret: secret, Method: "client_secret_post"}})
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
	want := map[string]string{"mcpbridge.oauth.step": stepTokenRequest, "mcpbridge.oauth.grant_type": grantClientCredentials, "server.address": u.Hostname(), "server.port": u.Port()}
	for i, s := range spans {
		oteltest.ChildOf(t, s, rec.Span(t, []string{"host s3cr3t", "host wrong"}[i]))
		oteltest.Has(t, s, want)
		if got := oteltest.Attrs(s); i == 0 && len(got) != len(want) {
			t.Errorf("attributes %v; want only %v", got, want)
		}
	}
	oteltest.Has(t, spans[1], map[string]string{"error.type": "invalid_client"})
}

// go-sdk's authorization code flow sends its token requests itself (the
// code exchange, the refresh); each is an oauth_token span all the same:
// the exchange in the trace of the request it serves, a refresh in a trace
// of its own, through the global provider, as oauth2 refreshes without the
// request's context.
func TestAuthorizationCodeTokenSpans(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := oteltest.New(t)
		global := otel.GetTracerProvider()
		otel.SetTracerProvider(rec.Traces)
		defer otel.SetTracerProvider(global)
		var n oauthtest.Network
		ts := n.Start(oauthtest.Config{Refresh: true, ExpiresIn: 60, AuthMethods: []string{"none"}})
		h := publicAuthorizationCode(t, &n)
		ctx, host := rec.Traces.Tracer("test").Start(t.Context(), "host")
		if _, err := ts.Call(ctx, h, n.Client(), "echo"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(31 * time.Second) // past half the token's minute: refreshed
		if _, err := ts.Call(ctx, h, n.Client(), "echo"); err != nil {
			t.Fatal(err)
		}
		host.End()
		var got []string
		for i, s := range rec.Named("oauth_token") {
			if i == 0 {
				oteltest.ChildOf(t, s, rec.Span(t, "host"))
			} else if s.Parent.IsValid() {
				t.Errorf("the refresh's span has a parent")
			}
			a := oteltest.Attrs(s)
			got = append(got, a["mcpbridge.oauth.step"]+" "+a["mcpbridge.oauth.grant_type"])
			if a["server.address"] == "" {
				t.Errorf("span without the endpoint's address: %v", a)
			}
		}
		if want := []string{stepTokenRequest + " " + grantAuthorizationCode, stepRefresh + " " + grantRefreshToken}; !slices.Equal(got, want) {
			t.Errorf("token spans %q; want %q", got, want)
		}
	})
}

// A token request go-sdk sends and the server refuses is a failed span
// saying the server's error code; the body is still there to be read.
func TestTracedTokenRequestRefused(t *testing.T) {
	rec := oteltest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error": "invalid_grant"}`)
	}))
	defer srv.Close()
	ctx, host := rec.Traces.Tracer("test").Start(t.Context(), "host")
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("grant_type=authorization_code&code=c0de"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := tracedTokens(srv.Client()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	host.End()
	if !strings.Contains(string(body), "invalid_grant") {
		t.Errorf("body %q", body)
	}
	s := rec.Span(t, "oauth_token")
	oteltest.Has(t, s, map[string]string{"error.type": "invalid_grant", "mcpbridge.oauth.grant_type": grantAuthorizationCode})
	if strings.Contains(fmt.Sprint(s.Attributes, s.Events, s.Status), "c0de") {
		t.Errorf("the span shows the code: %v", s)
	}
}
