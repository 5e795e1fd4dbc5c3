package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// helloServer is the server the examples front, over streamable HTTP: two
// tools, greet and shout.
func helloServer() *httptest.Server {
	hello := mcp.NewServer(&mcp.Implementation{Name: "hello"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(hello, &mcp.Tool{Name: "greet", Description: "Greet someone"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + in.Name}}}, nil, nil
	})
	mcp.AddTool(hello, &mcp.Tool{Name: "shout", Description: "Greet someone loudly"}, func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "HELLO, " + in.Name + "!"}}}, nil, nil
	})
	return httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hello }, nil))
}

// A gateway in front of one server, serving a client in memory as a desktop
// host is served over stdio (Run with &mcp.StdioTransport{}); Handler serves
// the same over HTTP.
func ExampleStart() {
	ctx := context.Background()
	srv := helloServer()
	defer srv.Close()

	g, err := gateway.Start(ctx, &config.Config{Servers: []config.Server{{Name: "hello", URL: srv.URL}}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	clientSide, serverSide := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- g.Run(ctx, serverSide) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet", Arguments: map[string]any{"name": "Ada"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	cs.Close()
	<-served // the client went away
	// Output:
	// Hello, Ada
}

// withToken sends each request with the token in Authorization: Bearer.
type withToken string

func (b withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// A gateway over HTTP for several clients, each named by its token, as
// the config file's "clients" says them: the CI is served only the greet
// tool of server hello, at one request a second in bursts of five; Ada
// every tool, at the gateway's rate. A request without a token is refused.
func ExampleOptions() {
	ctx := context.Background()
	srv := helloServer()
	defer srv.Close()

	g, err := gateway.Start(ctx, &config.Config{Servers: []config.Server{{Name: "hello", URL: srv.URL}}}, &gateway.Options{
		Clients: map[string]gateway.Client{
			"ci":  {Token: "ci-token", Allow: []string{"hello_greet*"}, RateLimit: &gateway.RateLimit{Rate: 1, Burst: 5}},
			"ada": {Token: "ada-token"},
		},
		RateLimit: &gateway.RateLimit{Rate: 20, Burst: 40},
		Limits:    gateway.Limits{SessionsPerClient: 10},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	endpoint := httptest.NewServer(g.Handler())
	defer endpoint.Close()

	for _, token := range []string{"ci-token", "ada-token"} {
		transport := &mcp.StreamableClientTransport{Endpoint: endpoint.URL + "/mcp", HTTPClient: &http.Client{Transport: withToken(token)}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, transport, nil)
		if err != nil {
			log.Fatal(err)
		}
		var names []string
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				log.Fatal(err)
			}
			names = append(names, t.Name)
		}
		slices.Sort(names)
		fmt.Println(token, names)
		cs.Close()
	}
	resp, err := http.Post(endpoint.URL+"/mcp", "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("no token:", resp.Status)
	// Output:
	// ci-token [hello_greet]
	// ada-token [hello_greet hello_shout]
	// no token: 401 Unauthorized
}

// Replicas behind one load balancer that share a store (Store: Redis or
// Valkey) hold each client's limits across them; every replica writes an
// audit record of each request. Here one gateway, without a store, and
// the record of its client's call.
func ExampleAudit() {
	ctx := context.Background()
	srv := helloServer()
	defer srv.Close()

	var records bytes.Buffer
	g, err := gateway.Start(ctx, &config.Config{Servers: []config.Server{{Name: "hello", URL: srv.URL}}}, &gateway.Options{
		Clients: map[string]gateway.Client{"ada": {Token: "ada-token"}},
		Audit:   &gateway.Audit{Writer: &records, Replica: "replica-1"},
		// Store: "redis://redis:6379/0", // the same for every replica
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	endpoint := httptest.NewServer(g.Handler())
	defer endpoint.Close()

	transport := &mcp.StreamableClientTransport{Endpoint: endpoint.URL + "/mcp", HTTPClient: &http.Client{Transport: withToken("ada-token")}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet", Arguments: map[string]any{"name": "Ada"}}); err != nil {
		log.Fatal(err)
	}
	cs.Close()
	// Once the gateway's endpoint has closed, no request is left to
	// write a record.
	endpoint.Close()
	for line := range strings.Lines(records.String()) {
		var r struct{ User, Method, Server, Tool, Outcome, Replica string }
		json.Unmarshal([]byte(line), &r)
		if r.Method == "tools/call" {
			fmt.Println(r.User, r.Method, r.Server, r.Tool, r.Outcome, r.Replica)
		}
	}
	// Output:
	// ada tools/call hello hello_greet ok replica-1
}
