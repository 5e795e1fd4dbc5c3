// Package auth authorizes a headless MCP client with OAuth: each mechanism
// is a go-sdk auth.OAuthHandler, to be set as the OAuthHandler of an
// mcp.StreamableClientTransport (mcptool.WithOAuth). The transport asks the
// handler for a token before each request and, when the server answers 401
// (or 403 insufficient_scope) with a WWW-Authenticate challenge, calls
// Authorize and resends the request once.
//
// Every mechanism discovers the server's authorization server the same way
// (protected resource metadata, RFC 9728, from the challenge's
// resource_metadata, then the well-known paths; authorization server
// metadata, RFC 8414 or OpenID discovery, with go-sdk's validated
// fetchers), sends the RFC 8707 resource indicator, caches the token per
// client and server, renews it before it expires ([Options.Skew], 30 s by
// default, at most half the token's lifetime) and keeps it in a
// [TokenStore] ([MemoryStore] unless told otherwise). The non-interactive
// mechanisms discover a server once, not at each challenge, and again only
// after the server refuses a token or its token endpoint fails other than
// with an OAuth error; the enterprise identity provider likewise.
//
// The metadata is the MCP server's to write, so it does not decide where
// credentials go. [Options.Issuer] pins the authorization server: another
// one named by the metadata is refused ([ErrUntrustedIssuer], naming both)
// with nothing sent to it. Without a pin, the mechanisms that send a
// credential to the token endpoint (client credentials, JWT bearer,
// enterprise) use only an authorization server on the MCP server's own
// origin; an authorization server elsewhere must be pinned, or trusted
// with [AnyIssuer]. The authorization code flow follows the metadata
// unless pinned (the user sees where the browser goes), but a
// pre-registered client with a secret needs its issuer. Metadata whose
// issuer is not the one it was fetched for (RFC 8414 section 3.3) is
// refused, as is metadata naming a token endpoint on another origin than
// its issuer's (the identity provider's too), pinned or not, and a token
// endpoint's redirect is not followed: the request carries the
// credentials.
//
// Choosing a mechanism:
//
//   - [NewAuthorizationCode]: a person is present and can use a browser.
//     OAuth 2.1 authorization code with PKCE, through go-sdk's handler
//     (client ID metadata documents, pre-registration or dynamic
//     registration; RFC 9207 issuer check; step-up on insufficient_scope;
//     refresh tokens). The host supplies an [Authorizer] that shows the
//     authorization URL and returns the redirect's code, state and iss.
//   - [NewClientCredentials] with [ClientSecretBasic], [ClientSecretPost] or
//     [ClientSecret]: a service with a client secret, no user (SEP-1046).
//   - [NewClientCredentials] with [*PrivateKeyJWT]: the same, but the client
//     proves itself with a signed assertion (RFC 7523 private_key_jwt, aud
//     the issuer by default) instead of a shared secret.
//   - [NewJWTBearer]: workload identity federation (SEP-1933). The host
//     already holds a JWT from a trusted issuer (a Kubernetes service
//     account token, a cloud or CI identity token) and trades it with the
//     RFC 7523 JWT-bearer grant; [AssertionFromFile] rereads a rotated file.
//   - [NewEnterprise]: enterprise-managed authorization (SEP-990). The
//     user's SSO identity (an ID token) is exchanged at the enterprise IdP
//     for an ID-JAG (RFC 8693), which the MCP authorization server takes
//     with the JWT-bearer grant; no consent screen.
//   - [DPoP] (RFC 9449, SEP-1932) adds sender-constrained tokens to any of
//     the above. It is an http.RoundTripper, not a handler, because the
//     handler interface cannot set per-request headers: put
//     [DPoP.Transport] in the mechanism's [Options.HTTPClient] (token
//     requests carry proofs and get DPoP-bound tokens) and in the MCP
//     transport's HTTPClient (each request carries a fresh proof with ath,
//     and the token goes as "Authorization: DPoP"). Server nonces are
//     honoured with one retry at both ends.
//
// Secrets stay secret: client secrets, private keys, assertions and tokens
// never appear in an error's text or a log record. Errors are *[Error]
// values naming the mechanism, the step that failed (discovery,
// registration, authorization, token request, token exchange, refresh) and,
// from a token endpoint, the OAuth error code and description.
//
// Telemetry: each token request (a grant, a refresh, a token exchange) is an
// OpenTelemetry client span, "oauth_token", saying the step, the grant type
// and the token endpoint's address, and for a failure the OAuth error code
// or the HTTP status; never a credential or a token. It goes to the tracer
// provider of the span in the request's context (the MCP request the token
// is for, when package mcptool sends it), or else to OpenTelemetry's global
// one, so it needs no setting of its own.
//
// Options: each mechanism is configured by a Config struct, data that
// embeds the shared [Options]. Zero means the default in every field; a
// negative duration ([Options.Skew], [PrivateKeyJWT.Lifetime]) is refused
// by the constructor with an error naming it.
//
// Transports: only mcp.StreamableClientTransport takes an OAuthHandler in
// go-sdk v1.8.0. mcp.SSEClientTransport has no such field: a handler's
// token could be added by a RoundTripper, but nothing would call Authorize
// on a 401, so these handlers are for streamable HTTP only.
package auth
