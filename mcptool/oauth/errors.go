package oauth

import (
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// The steps named by [Error.Step].
const (
	stepDiscovery     = "discovery"
	stepRegistration  = "registration"
	stepAuthorization = "authorization"
	stepTokenRequest  = "token request"
	stepTokenExchange = "token exchange"
	stepRefresh       = "refresh"
	stepAssertion     = "assertion"
	stepDPoP          = "dpop"
)

// Error reports which step of an OAuth flow failed and, for a token endpoint
// answer, the OAuth error code and description (RFC 6749 section 5.2).
//
// Its text never carries a secret: no client secret, private key, assertion
// or token, and no raw response body; only the step, the server's error code
// and description and the HTTP status.
type Error struct {
	Mechanism string // e.g. "client credentials"; may be empty
	// Step is the step that failed: "discovery", "registration",
	// "authorization", "token request", "token exchange", "refresh",
	// "assertion" (reading a JWT-bearer assertion or an enterprise subject
	// token) or "dpop" (signing a proof).
	Step        string
	Code        string // OAuth error code, e.g. "invalid_client"; may be empty
	Description string // OAuth error_description; may be empty
	Status      int    // HTTP status of the failing answer, 0 if none
	Err         error  // the cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("oauth: ")
	if e.Mechanism != "" {
		b.WriteString(e.Mechanism)
		b.WriteString(": ")
	}
	b.WriteString(e.Step)
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
		if e.Description != "" {
			fmt.Fprintf(&b, " (%s)", e.Description)
		}
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if _, isRetrieve := e.Err.(*oauth2.RetrieveError); e.Err != nil && !isRetrieve {
		// A RetrieveError only repeats Code and Description.
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
