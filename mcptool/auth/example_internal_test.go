package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// A runnable client credentials flow against a loopback authorization
// server and MCP server.
func Example_clientCredentials() {
	ts := startTestServer(func(ts *testServer) {
		ts.authMethods = []string{"client_secret_basic"}
		ts.checkToken = func(r *http.Request, f url.Values) *oauthErr {
			if id, secret, _ := r.BasicAuth(); id != "svc" || secret != "pw" {
				return &oauthErr{401, "invalid_client", "bad credentials"}
			}
			return nil
		}
	})
	defer ts.Close()

	h, _ := NewClientCredentials(ClientCredentialsConfig{Client: ClientSecretBasic("svc", "pw")})
	out, err := callTool(context.Background(), ts, h, nil, "echo")
	fmt.Println(out, err)

	h, _ = NewClientCredentials(ClientCredentialsConfig{Client: ClientSecretBasic("svc", "wrong")})
	_, err = callTool(context.Background(), ts, h, nil, "echo")
	fmt.Println(err)
	// Output:
	// [echo:hi] <nil>
	// calling "initialize": sending "initialize": rejected by transport: auth: client credentials: token request: invalid_client (bad credentials): HTTP 401
}
