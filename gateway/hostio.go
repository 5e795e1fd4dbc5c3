package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// hostOptions are what every server is told the gateway answers as a host
// for its clients: elicitation and sampling, relayed to the client whose
// call the request comes during (mcptool.WithRelay). Roots are the
// providers' own (mcptool.WithRoots among the toolset's options).
func (g *Gateway) hostOptions() []mcptool.Option {
	return []mcptool.Option{mcptool.WithRelay()}
}

// relayTo is whom a call of the catalog is made for: the client that sent
// req, asked through its session what the server asks during the call, and
// the answers its retry carries (2026-07-28 multi round trip).
func relayTo(req *mcp.CallToolRequest) mcptool.Caller {
	c := mcptool.Caller{InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState, Capabilities: req.ClientCapabilities()}
	if c.Capabilities == nil {
		c.Capabilities = &mcp.ClientCapabilities{} // it declared none
	}
	switch ss := req.Session; {
	case ss == nil:
	case stateless(ss):
		c.Relay = resultOnly{}
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

// resultOnly is a stateless client: what a server asks in its call's
// result (input_required) reaches it in the gateway's, and it answers in
// its next call; what a server asks on its own cannot reach it.
type resultOnly struct{}

func (resultOnly) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return nil, mcptool.ErrInputRequired
}

func (resultOnly) CreateMessageWithTools(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return nil, mcptool.ErrInputRequired
}

func (resultOnly) NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error {
	return nil
}
