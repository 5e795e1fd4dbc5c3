package mcptool

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The errors a provider returns, each naming the server. What a failure
// means to a caller (may it be retried, did the call run) is read with
// [tool.Retryable], [tool.OutcomeUnknown] and [tool.Fatal].
type (
	// A TransportError is a connection that failed or was lost.
	TransportError = mcpclient.TransportError
	// An HTTPError is an HTTP answer that is not MCP, with its status.
	HTTPError = mcpclient.HTTPError
	// A ProtocolError is something the server sent that the protocol
	// does not allow, or that passed a bound.
	ProtocolError = mcpclient.ProtocolError
	// A ConfigError is an option that cannot work, found at Connect.
	ConfigError = mcpclient.ConfigError
	// A SchemaError is a tool whose schema no check could finish on, or
	// a result that breaks its output schema.
	SchemaError = mcpclient.SchemaError
)

// ErrNotConnected is returned by a call before Connect or after Close;
// ErrConnected by a second Connect.
var (
	ErrNotConnected = mcpclient.ErrNotConnected
	ErrConnected    = mcpclient.ErrConnected
)

// ToReply converts an MCP tool result into what a model can read: text,
// images a vision model takes (measured before they are decoded), and a
// one-line note for every other part; the structured content kept apart.
func ToReply(res *mcp.CallToolResult) tool.Reply { return mcpclient.ToReply(res) }
