package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"time"
)

// A scenario drives one conformance scenario against the server at url.
type scenario func(ctx context.Context, url string, sc scenarioContext) error

// scenarios maps the suite's scenario names to their drivers.
var scenarios = map[string]scenario{}

func register(fn scenario, names ...string) {
	for _, name := range names {
		if _, dup := scenarios[name]; dup {
			panic("scenario registered twice: " + name)
		}
		scenarios[name] = fn
	}
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT: what the suite hands the
// client for one scenario. Only the members some scenario needs are named.
type scenarioContext struct {
	Name             string     `json:"name"`
	ClientID         string     `json:"client_id"`
	ClientSecret     string     `json:"client_secret"`
	Issuer           string     `json:"issuer"`
	PrivateKeyPEM    string     `json:"private_key_pem"`
	SigningAlgorithm string     `json:"signing_algorithm"`
	IdPClientID      string     `json:"idp_client_id"`
	IdPIDToken       string     `json:"idp_id_token"`
	IdPIssuer        string     `json:"idp_issuer"`
	IdPTokenEndpoint string     `json:"idp_token_endpoint"`
	ValidJWT         string     `json:"valid_jwt"`
	ToolCalls        []toolCall `json:"toolCalls"`
}

// toolCall is one call a scenario's context asks the client to make.
type toolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("conformance-client: ")
	if len(os.Args) < 2 {
		usage("usage: client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)")
	}
	url := os.Args[len(os.Args)-1]
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	run, ok := scenarios[name]
	if !ok {
		usage(fmt.Sprintf("unknown scenario %q", name))
	}
	var sc scenarioContext
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &sc); err != nil {
			log.Fatalf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
	}
	// The suite kills a client after 30 s by default; end sooner, with a
	// message saying where it stood.
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	if err := run(ctx, url, sc); err != nil {
		log.Printf("scenario %s: %v", name, err)
		cancel()
		os.Exit(1)
	}
}

func usage(msg string) {
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	log.Fatalf("%s\nscenarios:\n  %s", msg, strings.Join(names, "\n  "))
}
