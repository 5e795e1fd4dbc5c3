// Command client is mcpbridge's side of the official MCP client conformance
// suite (@modelcontextprotocol/conformance). The suite starts a server per
// scenario and runs this program with the server's URL as its last argument,
// the scenario's name in MCP_CONFORMANCE_SCENARIO and the scenario's context
// (client IDs, secrets, keys, assertions, tool calls) as a JSON object in
// MCP_CONFORMANCE_CONTEXT. The suite judges what reaches the wire.
//
// Every scenario is driven through mcpbridge's client as its command line
// and gateway use it: a provider of the client core (internal/mcpclient,
// of which package mcptool is the facade) built by FromURL with its options
// (WithOAuth, WithElicitation, WithTransport), its methods (Connect, Tools,
// CallToolResult, ReadResource, Request), and the OAuth handlers of package
// [oauth]. Nothing here talks to go-sdk directly; the only go-sdk types that
// appear are the ones the client returns (mcp.CallToolResult) and go-sdk's
// oauthex.ClientRegistrationMetadata, which [oauth.AuthorizationCodeConfig]
// takes.
//
// The one piece of wire handling of its own is the [oauth.Authorizer] of the
// authorization-code scenarios: where a person would open the authorization
// URL in a browser, this program fetches it without following the redirect
// (the suite's authorization server approves at once) and returns the
// redirect's Location, whose code, state and iss the handler reads.
//
// The Skills scenarios (sep-2640-client-*) go through internal/skills over
// the same provider, as a host's provider does.
//
// A scenario the API cannot drive is listed in conformance/baseline.yml with
// what the API lacks; see conformance/README.md.
package main
