package auth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/oauthtest"
	"github.com/mcpbridge/mcpbridge/mcptool/auth"
)

// The Examples run against oauthtest servers: loopback authorization
// servers guarding an MCP server whose "echo" tool answers "echo:hi".
// srv.Call(ctx, h, client, "echo") connects as ExampleNewClientCredentials
// shows and calls the tool.

// A service authenticates with a client secret. The handler goes in the
// streamable transport, which asks it for a token when the server answers
// 401.
func ExampleNewClientCredentials() {
	srv := oauthtest.Start(oauthtest.Config{Clients: map[string]string{"my-service": "s3cret"}})
	defer srv.Close()

	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client: auth.ClientSecretBasic("my-service", "s3cret"), // os.Getenv("CLIENT_SECRET")
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", OAuthHandler: h}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	fmt.Println(srv.Grants())
	// Output:
	// echo:hi
	// [client_credentials]
}

// A service proves itself with a signed assertion instead of a secret; the
// authorization server holds its public key.
func ExamplePrivateKeyJWT() {
	key, err := auth.ParsePrivateKeyPEM(examplePEM()) // os.ReadFile("client-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	srv := oauthtest.Start(oauthtest.Config{Keys: map[string]crypto.PublicKey{"my-service": key.Public()}})
	defer srv.Close()

	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client: &auth.PrivateKeyJWT{ID: "my-service", Key: key, KeyID: "2026-01"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	// Output: [echo:hi] <nil>
}

func ExampleParsePrivateKeyPEM() {
	key, err := auth.ParsePrivateKeyPEM(examplePEM())
	fmt.Printf("%T %v\n", key, err)
	_, err = auth.ParsePrivateKeyPEM([]byte("not a key"))
	fmt.Println(err)
	// Output:
	// *ecdsa.PrivateKey <nil>
	// auth: no PEM block in private key
}

// examplePEM returns a new P-256 key as a PEM file holds it.
func examplePEM() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		log.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// A workload in Kubernetes trades its projected service account token.
func ExampleNewJWTBearer() {
	srv := oauthtest.Start(oauthtest.Config{})
	defer srv.Close()
	path := exampleFile("header.claims.signature") // "/var/run/secrets/tokens/mcp"
	defer os.Remove(path)

	h, err := auth.NewJWTBearer(auth.JWTBearerConfig{
		Assertion: auth.AssertionFromFile(path),
		Client:    auth.PublicClient("my-workload"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	fmt.Println(srv.Grants())
	// Output:
	// [echo:hi] <nil>
	// [urn:ietf:params:oauth:grant-type:jwt-bearer]
}

// The file is read at each grant, so a token rotated in place is used.
func ExampleAssertionFromFile() {
	path := exampleFile("first.assertion.sig")
	defer os.Remove(path)
	assertion := auth.AssertionFromFile(path)
	fmt.Println(assertion(context.Background(), "https://auth.example.com"))
	os.WriteFile(path, []byte("rotated.assertion.sig\n"), 0o600)
	fmt.Println(assertion(context.Background(), "https://auth.example.com"))
	// Output:
	// first.assertion.sig <nil>
	// rotated.assertion.sig <nil>
}

// exampleFile returns the path of a new file that holds content.
func exampleFile(content string) string {
	f, err := os.CreateTemp("", "mcpbridge-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content + "\n"); err != nil {
		log.Fatal(err)
	}
	return f.Name()
}

// The user's SSO ID token becomes an MCP access token, with no consent
// screen: the identity provider exchanges it for an ID-JAG, which the MCP
// server's authorization server takes.
func ExampleNewEnterprise() {
	idp := oauthtest.Start(oauthtest.Config{Clients: map[string]string{"idp-client": "idp-secret"}})
	defer idp.Close()
	srv := oauthtest.Start(oauthtest.Config{Clients: map[string]string{"mcp-client": "mcp-secret"}})
	defer srv.Close()

	idToken := "header.alice.signature" // from the host's OIDC login
	h, err := auth.NewEnterprise(auth.EnterpriseConfig{
		IdPIssuer: idp.URL,
		IdPClient: auth.ClientSecretPost("idp-client", "idp-secret"),
		SubjectToken: func(context.Context) (string, string, error) {
			return idToken, auth.TokenTypeIDToken, nil
		},
		Client: auth.ClientSecretBasic("mcp-client", "mcp-secret"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	fmt.Println("identity provider:", idp.Grants())
	fmt.Println("MCP server's authorization server:", srv.Grants())
	// Output:
	// [echo:hi] <nil>
	// identity provider: [urn:ietf:params:oauth:grant-type:token-exchange]
	// MCP server's authorization server: [urn:ietf:params:oauth:grant-type:jwt-bearer]
}

// A CLI: the Authorizer sends the user's browser to the authorization URL
// and waits for the redirect on a loopback listener.
func ExampleNewAuthorizationCode() {
	srv := oauthtest.Start(oauthtest.Config{}) // its user consents at once
	defer srv.Close()

	redirects := make(chan *url.URL, 1)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	listener := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "You may close this window.")
		redirects <- r.URL
	})}
	go listener.Serve(l)
	defer listener.Close()
	authorizer := auth.AuthorizerFunc(func(ctx context.Context, authURL string) (*auth.Callback, error) {
		// A CLI opens authURL in the browser (xdg-open, open); this GET
		// follows the redirects as the browser would.
		resp, err := http.Get(authURL)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		select {
		case u := <-redirects:
			return auth.ParseCallback(u)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})

	h, err := auth.NewAuthorizationCode(auth.AuthorizationCodeConfig{
		Authorizer:  authorizer,
		RedirectURL: "http://" + l.Addr().String() + "/callback",
		Client:      auth.PublicClient("my-cli"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	fmt.Println("authorization requests:", len(srv.AuthorizationScopes()))
	// Output:
	// [echo:hi] <nil>
	// authorization requests: 1
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

// DPoP binds the tokens to a key. One DPoP serves both HTTP clients: the
// one that asks for tokens and the MCP transport's.
func ExampleNewDPoP() {
	srv := oauthtest.Start(oauthtest.Config{DPoP: true, DPoPNonce: true}) // proofs and nonces required
	defer srv.Close()

	d, err := auth.NewDPoP(nil) // a fresh P-256 key
	if err != nil {
		log.Fatal(err)
	}
	client := d.Client(nil)
	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
		Client:  auth.ClientSecretBasic("my-service", "s3cret"),
		Options: auth.Options{HTTPClient: client},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, client, "echo"))
	// Output: [echo:hi] <nil>
}

// Handlers sharing a store share their tokens: the second handler (after a
// restart, with a persistent TokenStore) uses the token the first obtained.
func ExampleMemoryStore() {
	srv := oauthtest.Start(oauthtest.Config{})
	defer srv.Close()

	cfg := auth.ClientCredentialsConfig{Client: auth.ClientSecretBasic("my-service", "s3cret")}
	cfg.Store = auth.NewMemoryStore()
	for range 2 { // a new handler each time, as after a restart
		h, err := auth.NewClientCredentials(cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	}
	fmt.Println("tokens issued:", srv.Tokens.Load())
	// Output:
	// [echo:hi] <nil>
	// [echo:hi] <nil>
	// tokens issued: 1
}

// The MCP server's metadata names its authorization server. Without a pin,
// a client secret goes only to one on the MCP server's own origin; one
// elsewhere must be pinned as the Issuer, or trusted with AnyIssuer.
func ExampleOptions_issuer() {
	as := oauthtest.Start(oauthtest.Config{})
	defer as.Close()
	srv := oauthtest.Start(oauthtest.Config{Issuer: as}) // its metadata names as
	defer srv.Close()

	for _, pin := range []string{"", as.URL, auth.AnyIssuer} {
		h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{
			Client:  auth.ClientSecretBasic("my-service", "s3cret"),
			Options: auth.Options{Issuer: pin},
		})
		if err != nil {
			log.Fatal(err)
		}
		_, err = srv.Call(context.Background(), h, nil, "echo")
		fmt.Println("untrusted:", errors.Is(err, auth.ErrUntrustedIssuer), "token requests:", len(as.Grants()))
	}
	// Output:
	// untrusted: true token requests: 0
	// untrusted: false token requests: 1
	// untrusted: false token requests: 2
}

// A refusal names the mechanism, the step and the OAuth error, never the
// secret.
func ExampleError() {
	srv := oauthtest.Start(oauthtest.Config{Clients: map[string]string{"my-service": "s3cret"}})
	defer srv.Close()

	h, err := auth.NewClientCredentials(auth.ClientCredentialsConfig{Client: auth.ClientSecretBasic("my-service", "wrong")})
	if err != nil {
		log.Fatal(err)
	}
	_, err = srv.Call(context.Background(), h, nil, "echo")
	var e *auth.Error
	if errors.As(err, &e) {
		fmt.Println(e)
		fmt.Println(e.Step, e.Code, e.Status)
	}
	// Output:
	// auth: client credentials: token request: invalid_client (bad client credentials): HTTP 401
	// token request invalid_client 401
}
