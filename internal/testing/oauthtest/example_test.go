package oauthtest_test

import (
	"context"
	"fmt"
	"log"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
	"github.com/mcpbridge/mcpbridge/mcptool/oauth"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A server on a Network is reached in memory, through the Network's client,
// by the handler's token requests and by the MCP transport alike.
func ExampleNetwork() {
	var n oauthtest.Network
	srv := n.Start(oauthtest.Config{Clients: map[string]string{"svc": "s3cret"}})
	h, err := oauth.NewClientCredentials(oauth.ClientCredentialsConfig{
		Client:  oauth.ClientAuth{ID: "svc", Secret: "s3cret", Method: "client_secret_basic"},
		Options: oauth.Options{HTTPClient: n.Client()},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(srv.Call(context.Background(), h, n.Client(), "echo", "write"))
	fmt.Println(srv.Grants(), srv.Tokens.Load())
	// Output:
	// [echo:hi write:hi] <nil>
	// [client_credentials] 1
}
