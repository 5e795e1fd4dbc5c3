package telemetry

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// SemConvVersion is the version of the OpenTelemetry semantic conventions
// mcpbridge follows. The MCP and GenAI conventions are in Development in it.
const SemConvVersion = "1.41.1"

// schemaURL is the schema of the conventions' names, for the tracers and
// meters.
const schemaURL = semconv.SchemaURL

// The conventions' attribute keys mcpbridge sets.
const (
	// MCP (registry: mcp, jsonrpc, rpc).
	MCPMethodName    = semconv.McpMethodNameKey
	MCPProtocol      = semconv.McpProtocolVersionKey
	MCPResourceURI   = semconv.McpResourceURIKey
	MCPSessionID     = semconv.McpSessionIDKey
	JSONRPCRequestID = semconv.JSONRPCRequestIDKey
	RPCStatusCode    = semconv.RPCResponseStatusCodeKey

	// Where the server is (registry: network, server).
	NetworkTransport    = semconv.NetworkTransportKey
	NetworkProtocolName = semconv.NetworkProtocolNameKey
	ServerAddress       = semconv.ServerAddressKey
	ServerPort          = semconv.ServerPortKey

	// ErrorTypeKey is error.type; its values are listed in the package doc.
	ErrorTypeKey = semconv.ErrorTypeKey

	// GenAI (registry: gen-ai).
	GenAIOperation     = semconv.GenAIOperationNameKey
	GenAIProvider      = semconv.GenAIProviderNameKey
	GenAIRequestModel  = semconv.GenAIRequestModelKey
	GenAIFinishReasons = semconv.GenAIResponseFinishReasonsKey
	GenAIInputTokens   = semconv.GenAIUsageInputTokensKey
	GenAIOutputTokens  = semconv.GenAIUsageOutputTokensKey
	GenAICacheRead     = semconv.GenAIUsageCacheReadInputTokensKey
	GenAICacheCreation = semconv.GenAIUsageCacheCreationInputTokensKey
	GenAIToolName      = semconv.GenAIToolNameKey
	GenAIToolCallID    = semconv.GenAIToolCallIDKey
	GenAIToolArguments = semconv.GenAIToolCallArgumentsKey
	GenAIToolResult    = semconv.GenAIToolCallResultKey
	GenAIPromptName    = semconv.GenAIPromptNameKey
)

// Values of the conventions' attributes.
const (
	// gen_ai.operation.name.
	OpExecuteTool = "execute_tool"
	OpChat        = "chat"
	OpInvokeAgent = "invoke_agent"

	// network.transport: an MCP server over stdio (or in-memory pipes) is
	// "pipe", over HTTP "tcp".
	TransportPipe = "pipe"
	TransportTCP  = "tcp"

	// MethodToolsCall is the MCP method of a tool call, the one whose span
	// is an execute_tool operation.
	MethodToolsCall = "tools/call"
)

// The values of error.type besides a JSON-RPC code and a Go type name.
const (
	ErrToolError = "tool_error" // the conventions' value for isError
	ErrTimeout   = "timeout"
	ErrCanceled  = "canceled"
	ErrRefused   = "refused"
	ErrUnserved  = "unserved"
	// ErrConnectionLost: the connection to the server ended unasked, under
	// a request or a session.
	ErrConnectionLost = "connection_lost"
	// ErrStepLimit: an agent's run reached its step limit.
	ErrStepLimit = "step_limit"
)

// mcpbridge's own attribute keys, for what the conventions do not name.
const (
	// ServerName is the host's name for an MCP server (the provider's name,
	// a config's key), which its spans carry besides server.address.
	ServerName = attribute.Key("mcpbridge.server.name")
	// RefusalReason says what refused a call: "arguments" or "policy".
	RefusalReason = attribute.Key("mcpbridge.refusal.reason")
	// OAuthStep and OAuthGrant describe a token request: the step (token
	// request, refresh, token exchange) and the grant_type sent.
	OAuthStep  = attribute.Key("mcpbridge.oauth.step")
	OAuthGrant = attribute.Key("mcpbridge.oauth.grant_type")
	// DisclosureMatches is how many tools a find_tools search matched;
	// DisclosureLoaded the names load_tools loaded.
	DisclosureMatches = attribute.Key("mcpbridge.disclosure.matches")
	DisclosureLoaded  = attribute.Key("mcpbridge.disclosure.loaded")
	// TaskID is a task's id, TaskPolls how often it was polled, and
	// TaskStatus the status it was last seen in.
	TaskID     = attribute.Key("mcpbridge.task.id")
	TaskPolls  = attribute.Key("mcpbridge.task.polls")
	TaskStatus = attribute.Key("mcpbridge.task.status")
)

// Values of [RefusalReason].
const (
	RefusedArguments = "arguments"
	RefusedPolicy    = "policy"
)

// The names of mcpbridge's own spans, each followed by its target (a
// server or a tool name) where there is one.
const (
	SpanConnect   = "connect"            // making a connection: start, handshake, listing
	SpanStart     = "start"              // starting the server process, or reaching the server
	SpanReconnect = "reconnect"          // rebuilding a lost connection
	SpanResend    = "resend"             // a tool call sent again after its exchange was lost
	SpanValidate  = "validate_arguments" // made only for a refusal
	SpanPolicy    = "check_policy"       // made only for a refusal
	SpanToken     = "oauth_token"        // a request to an OAuth token endpoint
	SpanTaskWait  = "await_task"         // waiting for a task to finish
	SpanElicit    = "elicit"             // the host asking its user for a server
	SpanSample    = "sample"             // the host's model answering a server
)

// The metrics' names: the conventions' two histograms, and mcpbridge's
// counts.
const (
	MetricOperationDuration = "mcp.client.operation.duration"
	MetricSessionDuration   = "mcp.client.session.duration"
	MetricReconnects        = "mcpbridge.client.reconnects"
	MetricResends           = "mcpbridge.client.resends"
	MetricRefusals          = "mcpbridge.tool.refusals"
)
