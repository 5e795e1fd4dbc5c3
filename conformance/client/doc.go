// Command client is mcpbridge's side of the official MCP client conformance
// suite (@modelcontextprotocol/conformance). The suite starts a server per
// scenario and runs this program with the server's URL as its last argument,
// the scenario's name in MCP_CONFORMANCE_SCENARIO and the scenario's context
// (client IDs, secrets, keys, assertions, tool calls) as a JSON object in
// MCP_CONFORMANCE_CONTEXT. The suite judges what reaches the wire.
//
// Every scenario is driven through mcpbridge's public API, as a host would
// use it: an [mcptool.Provider] built by [mcptool.FromURL] with its options
// ([mcptool.WithOAuth], [mcptool.WithHTTPClient]), its methods
// (Connect, Tools, CallToolResult, ReadResource, Request), and the OAuth
// handlers of package [auth]. Nothing here talks to go-sdk directly; the only
// go-sdk types that appear are the ones mcptool's own API returns
// (mcp.CallToolResult) and go-sdk's oauthex.ClientRegistrationMetadata, which
// [auth.AuthorizationCodeConfig] takes.
//
// The one piece of wire handling of its own is the [auth.Authorizer] of the
// authorization-code scenarios: where a person would open the authorization
// URL in a browser, this program fetches it without following the redirect
// (the suite's authorization server approves at once) and reads the code,
// state and iss from the redirect's Location, as [auth.ParseCallback] does
// for a real redirect URI.
//
// The Skills scenarios (sep-2640-client-*) go through package skills over
// the same provider, as a host would.
//
// A scenario the API cannot drive is listed in conformance/baseline.yml with
// what the API lacks; see conformance/README.md.
package main
