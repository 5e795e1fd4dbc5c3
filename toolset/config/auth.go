package config

import (
	"encoding/json"
	"errors"
	"maps"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Auth is a server's "auth" entry: how a headless host obtains the
// OAuth token an HTTP server asks for. Secrets may come from the
// environment with ${VAR}, and files are read when the server connects.
//
//	"auth": {"grant": "client_credentials", "clientId": "agent", "clientSecret": "${AGENT_SECRET}"}
//	"auth": {"grant": "client_credentials", "clientId": "agent", "clientAuth": "private_key_jwt", "privateKeyFile": "/etc/agent/key.pem", "keyId": "k1"}
//	"auth": {"grant": "jwt_bearer", "clientId": "agent", "clientAuth": "none", "assertionFile": "/var/run/secrets/token"}
//	"auth": {"grant": "enterprise", "clientId": "agent", "clientSecret": "${S}", "idpTokenEndpoint": "https://idp/token",
//	         "idpClientId": "agent-at-idp", "idpClientSecret": "${IDP_S}", "subjectTokenFile": "/run/id_token"}
//
// Add "dpop": true to bind the tokens to a key of the host's (RFC 9449).
//
// The server's metadata names its authorization server, but does not
// decide where the credentials go: they go to an authorization server on
// the server's own origin, or to the one "issuer" pins (its issuer URL, as
// the authorization server's metadata says); another is refused before
// anything is sent to it. "issuer": "*" trusts whichever the server names.
type Auth struct {
	// Grant is "client_credentials", "jwt_bearer" or "enterprise".
	Grant string
	// ClientID is the client's registration at the server's authorization
	// server.
	ClientID string
	// ClientSecret authenticates a confidential client.
	ClientSecret string
	// ClientAuth is how the client authenticates: "basic" (the default with
	// a secret), "post", "private_key_jwt", or "none" (the default without).
	ClientAuth string
	// PrivateKeyFile is the PEM private key of private_key_jwt; KeyID its
	// kid.
	PrivateKeyFile, KeyID string
	// AssertionFile holds the JWT of a jwt_bearer grant, read at every grant
	// (workload tokens are rotated in place).
	AssertionFile string
	// Issuer pins the authorization server (oauth.Options.Issuer): its
	// issuer URL, or "*" for whichever the server's metadata names.
	Issuer string
	// Scopes are requested with the token.
	Scopes []string
	// DPoP binds tokens to a key generated at start.
	DPoP bool
	// IdPTokenEndpoint, IdPClientID, IdPClientSecret and SubjectTokenFile
	// configure the identity provider's token exchange of an enterprise
	// grant.
	IdPTokenEndpoint, IdPClientID, IdPClientSecret, SubjectTokenFile string
}

// parseAuth decodes an "auth" entry, reporting unknown keys and wrong types
// as problems of the server.
func parseAuth(data json.RawMessage, problem func(key, format string, args ...any)) *Auth {
	entries, err := objectEntries(data)
	if err != nil {
		problem("auth", "want an object")
		return nil
	}
	a := &Auth{}
	const str = "a string"
	readObject(entries, "auth.", problem, []member{
		{"grant", decode(&a.Grant, str)},
		{"clientId", decode(&a.ClientID, str)},
		{"clientSecret", decode(&a.ClientSecret, str)},
		{"clientAuth", decode(&a.ClientAuth, str)},
		{"privateKeyFile", decode(&a.PrivateKeyFile, str)},
		{"keyId", decode(&a.KeyID, str)},
		{"assertionFile", decode(&a.AssertionFile, str)},
		{"issuer", decode(&a.Issuer, str)},
		{"scopes", decode(&a.Scopes, "an array of strings")},
		{"dpop", decode(&a.DPoP, "true or false")},
		{"idpTokenEndpoint", decode(&a.IdPTokenEndpoint, str)},
		{"idpClientId", decode(&a.IdPClientID, str)},
		{"idpClientSecret", decode(&a.IdPClientSecret, str)},
		{"subjectTokenFile", decode(&a.SubjectTokenFile, str)},
	})
	return a
}

// fields lists the auth entry's expandable strings with their keys.
func (a *Auth) fields() map[string]*string {
	return map[string]*string{
		"auth.clientId": &a.ClientID, "auth.clientSecret": &a.ClientSecret,
		"auth.privateKeyFile": &a.PrivateKeyFile, "auth.assertionFile": &a.AssertionFile, "auth.issuer": &a.Issuer,
		"auth.idpTokenEndpoint": &a.IdPTokenEndpoint, "auth.idpClientId": &a.IdPClientID,
		"auth.idpClientSecret": &a.IdPClientSecret, "auth.subjectTokenFile": &a.SubjectTokenFile,
	}
}

// check reports what makes the entry unusable.
func (a *Auth) check(problem func(key, format string, args ...any)) {
	if a.ClientID == "" {
		problem("auth.clientId", "required")
	}
	method := a.Method()
	switch method {
	case "basic", "post":
		if a.ClientSecret == "" {
			problem("auth.clientSecret", "required with clientAuth %q", method)
		}
	case "private_key_jwt":
		if a.PrivateKeyFile == "" {
			problem("auth.privateKeyFile", "required with clientAuth \"private_key_jwt\"")
		}
	case "none":
	default:
		problem("auth.clientAuth", "%q: want basic, post, private_key_jwt or none", a.ClientAuth)
	}
	if a.Issuer != "" && a.Issuer != anyIssuer && !issuerURL(a.Issuer) {
		problem("auth.issuer", "%q: want the authorization server's https URL, without query or fragment, or \"*\"", a.Issuer)
	}
	files := map[string]string{"auth.privateKeyFile": a.PrivateKeyFile}
	switch a.Grant {
	case "client_credentials":
		if method == "none" {
			problem("auth.clientAuth", "a client_credentials grant needs client authentication")
		}
	case "jwt_bearer":
		if a.AssertionFile == "" {
			problem("auth.assertionFile", "required for a jwt_bearer grant")
		}
		files["auth.assertionFile"] = a.AssertionFile
	case "enterprise":
		for _, f := range []struct{ key, v string }{
			{"auth.idpTokenEndpoint", a.IdPTokenEndpoint}, {"auth.idpClientId", a.IdPClientID}, {"auth.subjectTokenFile", a.SubjectTokenFile},
		} {
			if f.v == "" {
				problem(f.key, "required for an enterprise grant")
			}
		}
		files["auth.subjectTokenFile"] = a.SubjectTokenFile
	case "":
		problem("auth.grant", "required: client_credentials, jwt_bearer or enterprise")
	default:
		problem("auth.grant", "%q: want client_credentials, jwt_bearer or enterprise (an interactive authorization-code flow is for a host with a user: see mcptool/oauth)", a.Grant)
	}
	for _, key := range slices.Sorted(maps.Keys(files)) {
		if path := files[key]; path != "" {
			if _, err := os.Stat(path); err != nil {
				problem(key, "cannot read the file: %v", errors.Unwrap(err))
			}
		}
	}
}

// issuerURL reports whether s can be an issuer identifier (RFC 8414
// section 2): an https URL without query or fragment, or http on a
// loopback address for tests.
func issuerURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Scheme == "https" || u.Scheme == "http" && (u.Hostname() == "localhost" || ip != nil && ip.IsLoopback())
}

func (a *Auth) Method() string {
	switch {
	case a.ClientAuth != "":
		return a.ClientAuth
	case a.ClientSecret != "":
		return "basic"
	case a.PrivateKeyFile != "":
		return "private_key_jwt"
	}
	return "none"
}

// String keeps secrets out of a printed entry.
func (a *Auth) String() string {
	parts := []string{"grant=" + a.Grant, "clientId=" + a.ClientID, "clientAuth=" + a.Method()}
	if a.ClientSecret != "" {
		parts = append(parts, "clientSecret=…")
	}
	if a.Issuer != "" {
		parts = append(parts, "issuer="+a.Issuer)
	}
	if a.DPoP {
		parts = append(parts, "dpop")
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// anyIssuer is the "issuer" that trusts whichever authorization server the
// server's metadata names (mcptool/oauth's AnyIssuer).
const anyIssuer = "*"
