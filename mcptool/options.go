package mcptool

import "github.com/mcpbridge/mcpbridge/internal/mcpclient"

// Options are how a provider runs, whatever its transport; nil or the zero
// value is the defaults. Its fields: Name, Filter (the tools kept, by the
// server's name), OnEvent (each change of state or tools), Logger, Limits,
// Telemetry, Reconnect, Roots, Elicitor, Sampling and Apps.
type Options = mcpclient.Options

// A Command is a server started over stdio: Path, Args, Env (added to a
// minimal environment, never the host's secrets), Dir and Stderr.
type Command = mcpclient.Command

// HTTP is a server reached over HTTP: URL, Headers, Client, OAuth (package
// mcptool/oauth) and SSE for the 2024-11-05 transport.
type HTTP = mcpclient.HTTP

// Limits bound what a server may cost the host: timeouts (Connect,
// Request, Call; zero the default, negative none) and sizes (MessageSize,
// Pages, ListedItems, ListedBytes, Description; zero the default, a
// negative one refused).
type Limits = mcpclient.Limits

// An Event is a change of a provider's state, or a new listing of its
// tools (ToolsChanged).
type Event = mcpclient.Event

// Telemetry is where spans and measurements go (OpenTelemetry's global
// providers where nil), and whether calls' arguments and results are
// recorded (Content).
type Telemetry = mcpclient.Telemetry

// Reconnect rebuilds a lost connection: MaxAttempts, MinDelay, MaxDelay.
// A call caught by the loss is sent again only for a tool annotated
// read-only or idempotent.
type Reconnect = mcpclient.Reconnect

// Sampling lets a server ask the host's model (sampling/createMessage),
// behind an approval hook and bounds on tokens and requests.
type Sampling = mcpclient.Sampling

// A SamplingRequest is what a server asked the model, as the approval hook
// sees it.
type SamplingRequest = mcpclient.SamplingRequest

// State is where a provider's connection stands.
type State = mcpclient.State

// The states of a provider's connection.
const (
	StateIdle         = mcpclient.StateIdle
	StateConnecting   = mcpclient.StateConnecting
	StateReady        = mcpclient.StateReady
	StateReconnecting = mcpclient.StateReconnecting
	StateFailed       = mcpclient.StateFailed
	StateClosed       = mcpclient.StateClosed
)

// AppResource is a tool's MCP App interface, read and checked: its HTML,
// the CSP and permissions its frame asks for (AppCSP, AppPermissions).
type (
	AppResource    = mcpclient.AppResource
	AppCSP         = mcpclient.AppCSP
	AppPermissions = mcpclient.AppPermissions
)
