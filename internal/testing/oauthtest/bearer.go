package oauthtest

import "net/http"

// Bearer returns a RoundTripper that sends each request with token as its
// bearer token (RFC 6750), over [http.DefaultTransport]: a client that
// holds a token already, as a test of a resource server wants one.
func Bearer(token string) http.RoundTripper { return bearer(token) }

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
