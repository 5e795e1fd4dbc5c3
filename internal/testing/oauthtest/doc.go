// Package oauthtest serves OAuth authorization servers in front of an MCP
// server, for the tests and runnable Examples of the hosts that must obtain
// a token first (mcptool/oauth, mcptool, toolset, the CLI).
//
// A [Server] is at once an authorization server and a protected MCP server:
// authorization server metadata (RFC 8414), an authorization endpoint with
// PKCE, a token endpoint for the authorization code, refresh, client
// credentials, JWT-bearer and token-exchange (ID-JAG) grants, dynamic
// registration, and at URL+"/mcp" an MCP server that answers 401 with its
// protected resource metadata (RFC 9728) until a request carries a token its
// authorization server issued. It can require DPoP (RFC 9449) at both ends
// and scopes per tool (403 insufficient_scope), issue JWT access tokens
// (RFC 9068) signed with keys it serves and rotates, for a resource server
// that checks them itself ([Config.JWT], [Server.Mint], [Server.Rotate]),
// and misbehave on purpose
// (another issuer in its metadata, a wrong iss, a redirecting token
// endpoint, metadata that names another server every second read).
//
// Options: a Server is described by a [Config], data whose zero value is a
// server that gives any client a token for its own MCP server; zero means
// the default in every field.
//
// [Start] and [New] listen on a loopback port. A test in a testing/synctest
// bubble puts its servers on a [Network] instead, which connects clients to
// them in memory: a goroutine waiting on a socket is never durably blocked,
// so a real connection would keep the bubble's clock still.
package oauthtest
