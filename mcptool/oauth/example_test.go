package oauth_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

// The Examples run against oauthtest servers: loopback authorization
// servers guarding an MCP server whose "echo" tool answers "echo:hi".
// srv.Call(ctx, h, client, "echo") connects with go-sdk's streamable
// transport, as ExampleTransport shows, and calls the tool.

// A service authenticates with a client secret. The handler goes in the
// provider's HTTP settings (or in go-sdk's streamable transport, as
// ExampleTransport shows), which ask it for a token when the server
// answers 401.
func ExampleNewClientCredentials() {
	srv := oauthtest.Start(oauthtest.Config{Clients: map[string]string{"my-service": "s3cret"}})
	defer srv.Close()

	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client: oauth.ClientAuth{ID: "my-service", Secret: "s3cret"}, // os.Getenv("CLIENT_SECRET")
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	server := mcptool.FromURL(mcptool.HTTP{URL: srv.URL + "/mcp", OAuth: h}, nil)
	if err := server.Connect(ctx); err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	res, err := server.Handler().Call(ctx, "echo", json.RawMessage(`{"text": "hi"}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	fmt.Println(srv.Grants())
	// Output:
	// echo:hi
	// [client_credentials]
}

// A service proves itself with a signed assertion (private_key_jwt) instead
// of a secret; the authorization server holds its public key.
func ExampleClientAuth() {
	key, err := oauth.ParsePrivateKeyPEM(examplePEM()) // os.ReadFile("client-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	srv := oauthtest.Start(oauthtest.Config{Keys: map[string]crypto.PublicKey{"my-service": key.Public()}})
	defer srv.Close()

	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client: oauth.ClientAuth{ID: "my-service", Key: key, KeyID: "2026-01"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, nil, "echo"))
	// Printed or logged, a ClientAuth shows neither its key nor a secret.
	fmt.Println(oauth.ClientAuth{ID: "my-service", Key: key})
	fmt.Printf("%+v\n", oauth.ClientAuth{ID: "other", Secret: "s3cret"})
	// Output:
	// [echo:hi] <nil>
	// private_key_jwt(my-service)
	// client_secret(other)
}

func ExampleParsePrivateKeyPEM() {
	key, err := oauth.ParsePrivateKeyPEM(examplePEM())
	fmt.Printf("%T %v\n", key, err)
	_, err = oauth.ParsePrivateKeyPEM([]byte("not a key"))
	fmt.Println(err)
	// Output:
	// *ecdsa.PrivateKey <nil>
	// oauth: no PEM block in private key
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

// A workload in Kubernetes trades its projected service account token,
// read from its file at each grant, so that a token rotated in place is
// used.
func ExampleNewJWTBearer() {
	srv := oauthtest.Start(oauthtest.Config{})
	defer srv.Close()
	path := exampleFile("header.claims.signature") // "/var/run/secrets/tokens/mcp"
	defer os.Remove(path)

	h, err := oauth.NewJWTBearer(oauth.JWTBearerConfig{
		AssertionFile: path,
		Client:        oauth.ClientAuth{ID: "my-workload"},
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
	h, err := oauth.NewEnterprise(oauth.EnterpriseConfig{
		IdPIssuer: idp.URL,
		IdPClient: oauth.ClientAuth{ID: "idp-client", Secret: "idp-secret", Method: "client_secret_post"},
		SubjectToken: func(context.Context) (string, string, error) {
			return idToken, oauthex.TokenTypeIDToken, nil
		},
		Client: oauth.ClientAuth{ID: "mcp-client", Secret: "mcp-secret"},
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
	authorizer := func(ctx context.Context, authURL string) (*url.URL, error) {
		// A CLI opens authURL in the browser (xdg-open, open); this GET
		// follows the redirects as the browser would.
		resp, err := http.Get(authURL)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		select {
		case u := <-redirects:
			return u, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}

	h, err := oauth.NewAuthorizationCode(oauth.AuthorizationCodeConfig{
		Authorizer:  authorizer,
		RedirectURL: "http://" + l.Addr().String() + "/callback",
		Client:      oauth.ClientAuth{ID: "my-cli"},
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

// DPoP binds the tokens to a key: the handler's token requests carry
// proofs, and so do the MCP requests of the transport that goes through
// Transport (a provider given the handler in its mcptool.HTTP adds it
// itself).
func ExampleOptions_dPoP() {
	srv := oauthtest.Start(oauthtest.Config{DPoP: true, DPoPNonce: true}) // proofs and nonces required
	defer srv.Close()

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client:  oauth.ClientAuth{ID: "my-service", Secret: "s3cret"},
		Options: oauth.Options{DPoP: key},
	})
	if err != nil {
		log.Fatal(err)
	}
	client := &http.Client{Transport: oauth.Transport(h, nil)}
	fmt.Println(srv.Call(context.Background(), h, client, "echo"))
	// Output: [echo:hi] <nil>
}

// A host that builds go-sdk's transport itself puts the handler's
// Transport in its HTTP client, as mcptool does.
func ExampleTransport() {
	srv := oauthtest.Start(oauthtest.Config{DPoP: true})
	defer srv.Close()

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client:  oauth.ClientAuth{ID: "my-service", Secret: "s3cret"},
		Options: oauth.Options{DPoP: key},
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{
		Endpoint:     srv.URL + "/mcp",
		OAuthHandler: h,
		HTTPClient:   &http.Client{Transport: oauth.Transport(h, http.DefaultTransport)},
	}
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
	// Output: echo:hi
}

// Handlers sharing a store share their tokens: the second handler (after a
// restart, with a store that persists) uses the token the first obtained.
func ExampleTokenStore() {
	srv := oauthtest.Start(oauthtest.Config{})
	defer srv.Close()

	cfg := oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "my-service", Secret: "s3cret"}}
	cfg.Store = &sharedStore{}
	for range 2 { // a new handler each time, as after a restart
		h, err := oauth.NewClientCredentials(cfg)
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

// sharedStore is a TokenStore in memory. A persistent one would write the
// tokens where the next run finds them, protected: they are secrets.
type sharedStore struct {
	mu     sync.Mutex
	tokens map[string]oauth2.Token
}

func (s *sharedStore) Get(_ context.Context, key string) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := s.tokens[key]; ok {
		return &tok, nil
	}
	return nil, nil
}

func (s *sharedStore) Put(_ context.Context, key string, tok *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = map[string]oauth2.Token{}
	}
	s.tokens[key] = *tok
	return nil
}

// The MCP server's metadata names its authorization server. Without a pin,
// a client secret goes only to one on the MCP server's own origin; one
// elsewhere must be pinned as the Issuer, or trusted with AnyIssuer.
func ExampleOptions_issuer() {
	as := oauthtest.Start(oauthtest.Config{})
	defer as.Close()
	srv := oauthtest.Start(oauthtest.Config{Issuer: as}) // its metadata names as
	defer srv.Close()

	for _, pin := range []string{"", as.URL, oauth.AnyIssuer} {
		h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
			Client:  oauth.ClientAuth{ID: "my-service", Secret: "s3cret"},
			Options: oauth.Options{Issuer: pin},
		})
		if err != nil {
			log.Fatal(err)
		}
		_, err = srv.Call(context.Background(), h, nil, "echo")
		fmt.Println("untrusted:", errors.Is(err, oauth.ErrUntrustedIssuer), "token requests:", len(as.Grants()))
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

	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{Client: oauth.ClientAuth{ID: "my-service", Secret: "wrong"}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = srv.Call(context.Background(), h, nil, "echo")
	var e *oauth.Error
	if errors.As(err, &e) {
		fmt.Println(e)
		fmt.Println(e.Step, e.Code, e.Status)
	}
	// Output:
	// oauth: client credentials: token request: invalid_client (bad client credentials): HTTP 401
	// token request invalid_client 401
}
