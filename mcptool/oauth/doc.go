// Package oauth authorizes a headless MCP client with OAuth: each mechanism
// is a go-sdk auth.OAuthHandler, for the OAuth field of an mcptool.HTTP or
// the OAuthHandler of an mcp.StreamableClientTransport. The transport asks
// the handler for a token before each request and, when the server answers
// 401 (or 403 insufficient_scope) with a challenge, calls Authorize and
// resends the request once.
//
// Every mechanism discovers the server's authorization server the same way
// (protected resource metadata, RFC 9728; authorization server metadata,
// RFC 8414 or OpenID discovery, with go-sdk's validated fetchers), sends the
// RFC 8707 resource indicator, caches the token per client and server,
// renews it before it expires and keeps it in a [TokenStore]. The
// non-interactive mechanisms discover a server once, and again only after
// the server refuses a token or its token endpoint fails other than with an
// OAuth error.
//
// The metadata is the MCP server's to write, so it does not decide where
// credentials go. [Options.Issuer] pins the authorization server: another
// one named by the metadata is refused ([ErrUntrustedIssuer], naming both)
// with nothing sent to it. Without a pin, the mechanisms that send a
// credential to the token endpoint use only an authorization server on the
// MCP server's own origin; one elsewhere must be pinned, or trusted with
// [AnyIssuer]. Metadata whose issuer is not the one it was fetched for
// (RFC 8414 section 3.3) is refused, as is a token endpoint on another
// origin than its issuer's, and a token endpoint's redirect is not
// followed: the request carries the credentials.
//
// Choosing a mechanism:
//
//   - [NewAuthorizationCode]: a person is present and can use a browser.
//     OAuth 2.1 authorization code with PKCE, through go-sdk's handler
//     (client ID metadata documents, pre-registration or dynamic
//     registration; RFC 9207 issuer check; step-up on insufficient_scope;
//     refresh tokens). The host's [Authorizer] shows the authorization URL
//     and returns the redirect.
//   - [NewClientCredentials]: a service, no user (SEP-1046), authenticated
//     by a [ClientAuth] with a secret or with a private key (RFC 7523
//     private_key_jwt).
//   - [NewJWTBearer]: workload identity federation (SEP-1933). The host
//     holds a JWT from a trusted issuer (a Kubernetes service account token,
//     a cloud or CI identity token) and trades it with the RFC 7523
//     JWT-bearer grant.
//   - [NewEnterprise]: enterprise-managed authorization (SEP-990). The
//     user's SSO identity is exchanged at the enterprise IdP for an ID-JAG
//     (RFC 8693), which the MCP authorization server takes with the
//     JWT-bearer grant; no consent screen.
//
// [Options.DPoP] binds the tokens of any of them to a key (RFC 9449,
// SEP-1932); mcptool then adds the proofs to the MCP requests too (see
// [Transport]).
//
// Secrets stay secret: client secrets, private keys, assertions and tokens
// never appear in an error's text or a log record. Errors are *[Error]
// values naming the mechanism, the step that failed and, from a token
// endpoint, the OAuth error code and description. Each token request is an
// OpenTelemetry client span, "oauth_token", never carrying a credential.
// The handlers are for streamable HTTP only: go-sdk v1.8.0's SSE transport
// takes no OAuthHandler.
package oauth
