package gateway_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// The answers a client has not read are bounded in bytes, its own and all
// clients', until they are written or the client goes away: mallory, who
// never reads an answer of 1 MiB (a stateless call's, or one in a session,
// which gives back its call slot before its answer is written), holds the
// gateway's memory no further than her bound, her next answer refused
// saying so; bob's answers are his own; past the bound of all clients,
// carol's is refused too.
func TestAnswersNotReadAreBounded(t *testing.T) {
	const size = 1 << 20
	for _, stall := range []string{"stateless", "session"} {
		t.Run(stall, func(t *testing.T) {
			g := start(t, []config.Server{blobUpstream(t, nil)}, &gateway.Options{
				Clients: map[string]gateway.Client{"mallory": {Token: "tm"}, "bob": {Token: "tb"}, "carol": {Token: "tc"}},
				Limits:  gateway.Limits{ResultBytesPerClient: 3 << 19, ResultBytes: 5 << 19},
			})
			// The gateway's connections buffer a few kilobytes: a stalled
			// answer stays in its lane.
			url := hostile.Serve(t, g.Handler()) + "/mcp"
			args := map[string]any{"size": size}
			stallOne := func(token string) {
				switch stall {
				case "stateless":
					hostile.StallCall(t, url, token, "blobs_blob", args)
				case "session":
					hostile.StallSessionCall(t, url, token, "blobs_blob", args)
				}
			}
			stallOne("tm")
			call := func(token, version string) (*mcp.CallToolResult, error) {
				cs := connect(t, url, version, nil, bearer(token))
				return cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "blobs_blob", Arguments: args})
			}
			// refused calls the client of token until a call is refused:
			// a stalled answer is held once the gateway wrote it to its
			// lane, which one of the calls finds, at the latest.
			refused := func(token string) error {
				var err error
				for i := 0; i < 50 && err == nil; i++ {
					_, err = call(token, versions[i%2])
				}
				return err
			}
			if err := refused("tm"); err == nil || !strings.Contains(err.Error(), "(ResultBytesPerClient, 1572864)") || !strings.Contains(err.Error(), "not yet read") {
				t.Fatalf("mallory's next call while her answer is unread: %v; want a refusal naming ResultBytesPerClient", err)
			}
			for _, version := range versions {
				res, err := call("tb", version)
				if err != nil || res.IsError {
					t.Fatalf("bob (%s), beside mallory: %v, %v", version, res, err)
				}
			}
			stallOne("tb")
			if err := refused("tc"); err == nil || !strings.Contains(err.Error(), "(ResultBytes, 2621440)") {
				t.Fatalf("carol, past the bound of all clients: %v; want a refusal naming ResultBytes", err)
			}
		})
	}
}
