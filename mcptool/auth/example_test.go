package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool/auth"
)

// A service authenticates with a client secret; the handler goes in the
// streamable transport. The secret goes only to the authorization server
// that issued it, whatever the MCP server's metadata names.
func ExampleNewClientCredentials() {
	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client:  auth.ClientSecretBasic("my-service", os.Getenv("CLIENT_SECRET")),
		Options: auth.Options{Issuer: "https://auth.example.com"},
	})
	if err != nil {
		log.Fatal(err)
	}
	transport := &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h}
	_ = transport
}

// A service proves itself with a signed assertion instead of a secret.
func ExamplePrivateKeyJWT() {
	pemKey, err := os.ReadFile("client-key.pem")
	if err != nil {
		return
	}
	key, err := auth.ParsePrivateKeyPEM(pemKey)
	if err != nil {
		log.Fatal(err)
	}
	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client: &auth.PrivateKeyJWT{ID: "my-service", Key: key, KeyID: "2026-01"},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h}
}

// A workload in Kubernetes trades its projected service account token.
func ExampleNewJWTBearer() {
	h, err := auth.NewJWTBearer(auth.JWTBearerConfig{
		Assertion: auth.AssertionFromFile("/var/run/secrets/tokens/mcp"),
		Client:    auth.PublicClient("my-workload"),
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h}
}

// The user's SSO ID token becomes an MCP access token, with no consent screen.
func ExampleNewEnterprise() {
	idToken := os.Getenv("ID_TOKEN") // from the host's OIDC login
	h, err := auth.NewEnterprise(auth.EnterpriseConfig{
		IdPIssuer: "https://acme.okta.example",
		IdPClient: auth.ClientSecretPost("idp-client", os.Getenv("IDP_SECRET")),
		SubjectToken: func(context.Context) (string, string, error) {
			return idToken, auth.TokenTypeIDToken, nil
		},
		Client: auth.ClientSecretBasic("mcp-client", os.Getenv("MCP_SECRET")),
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h}
}

// A CLI: the Authorizer opens the browser and waits on a loopback redirect.
func ExampleNewAuthorizationCode() {
	codes := make(chan *url.URL, 1)
	srv := &http.Server{Addr: "127.0.0.1:8976", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "You may close this window.")
		codes <- r.URL
	})}
	authorizer := auth.AuthorizerFunc(func(ctx context.Context, authURL string) (*auth.Callback, error) {
		go srv.ListenAndServe()
		defer srv.Close()
		fmt.Println("Open", authURL) // or exec xdg-open / open
		select {
		case u := <-codes:
			return auth.ParseCallback(u)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	h, err := auth.NewAuthorizationCode(auth.AuthorizationCodeConfig{
		Authorizer:          authorizer,
		RedirectURL:         "http://127.0.0.1:8976/callback",
		Client:              auth.PublicClient("my-cli"),
		RequestRefreshToken: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h}
}

// DPoP wraps both HTTP clients: the one for token requests and the MCP one.
func ExampleDPoP() {
	d, err := auth.NewDPoP(nil) // a fresh P-256 key
	if err != nil {
		log.Fatal(err)
	}
	client := d.Client(nil)
	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client:  auth.ClientSecretBasic("my-service", os.Getenv("CLIENT_SECRET")),
		Options: auth.Options{HTTPClient: client},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcp.StreamableClientTransport{Endpoint: "https://mcp.example.com/mcp", OAuthHandler: h, HTTPClient: client}
}

func ExampleParseCallback() {
	u, _ := url.Parse("http://127.0.0.1:8976/callback?code=abc&state=xyz")
	cb, err := auth.ParseCallback(u)
	fmt.Println(cb.Code, cb.State, err)
	u, _ = url.Parse("http://127.0.0.1:8976/callback?error=access_denied&error_description=user+said+no")
	_, err = auth.ParseCallback(u)
	fmt.Println(err)
	// Output:
	// abc xyz <nil>
	// auth: authorization: access_denied (user said no)
}
