package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// hostOptions are what every server is told the gateway answers as a host
// for its clients: elicitation and sampling, relayed to the client whose
// call the request comes during (mcpclient.WithRelay). Roots are the
// providers' own (mcpclient.WithRoots among the toolset's options).
func (g *Gateway) hostOptions() []mcpclient.Option {
	return []mcpclient.Option{mcpclient.WithRelay()}
}

// relayTo is whom a call of the catalog is made for: the client that sent
// req, asked through its session what the server asks during the call, and
// the answers its retry carries (2026-07-28 multi round trip), and whether
// it follows a task its call becomes (tasks.go).
func relayTo(req *mcp.CallToolRequest) mcpclient.Caller {
	c := callerFor(req.Session, req.Params.InputResponses, req.Params.RequestState)
	c.Capabilities = req.ClientCapabilities()
	if c.Capabilities == nil {
		c.Capabilities = &mcp.ClientCapabilities{} // it declared none
	}
	c.FollowsTasks = req.Session != nil && stateless(req.Session) && c.Capabilities.Extensions[tasksExtension] != nil
	return c
}

// callerFor is the client of the session ss, whose request carries the
// answers responses and the state to the questions of the result before.
// Its tools/call, resources/read and prompts/get are relayed alike.
func callerFor(ss *mcp.ServerSession, responses mcp.InputResponseMap, state string) mcpclient.Caller {
	c := mcpclient.Caller{InputResponses: responses, RequestState: state}
	switch {
	case ss == nil:
	case stateless(ss):
		c.Relay = mcpclient.ResultOnly{}
	default:
		// Asked with the call's context, so that go-sdk sends the
		// requests on the call's own stream.
		c.Relay = ss
	}
	return c
}

// stateless reports whether the client speaks a protocol without sessions,
// to which a server sends no request of its own.
func stateless(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= statelessVersion
}
