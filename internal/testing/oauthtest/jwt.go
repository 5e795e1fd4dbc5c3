package oauthtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// A signingKey is one of the keys a Server signs JWT access tokens with.
type signingKey struct {
	id  string
	key *ecdsa.PrivateKey
}

// Mint signs claims with s's current key (ES256, its kid in the header, typ
// at+jwt) and returns the compact JWT: a token s could have issued, with
// whatever claims a test needs (an expired one, another audience, another
// issuer). Mint makes the first key if s has none yet.
func (s *Server) Mint(claims map[string]any) string { return s.MintTyped("at+jwt", claims) }

// MintTyped is [Server.Mint] with typ as the header's type, none if empty:
// a JWT of another kind the same keys sign (a DPoP proof, a logout token),
// or an access token of an issuer that does not type them.
func (s *Server) MintTyped(typ string, claims map[string]any) string {
	k := s.currentKey()
	opts := (&jose.SignerOptions{}).WithHeader(jose.HeaderKey("kid"), k.id)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.key}, opts)
	if err != nil {
		panic(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		panic(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		panic(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		panic(err)
	}
	return out
}

// Rotate makes a new key s's current one, as an authorization server
// rotates its signing key: the tokens it issues from now on carry the new
// kid, and its key set at /jwks lists the new key beside the old ones.
func (s *Server) Rotate() {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	s.keys = append(s.keys, newSigningKey(len(s.keys)+1))
}

// AddResource lets s issue tokens for resource too, as for its own MCP
// server: an MCP server elsewhere that trusts s as its authorization server.
func (s *Server) AddResource(resource string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources = append(s.resources, resource)
}

func (s *Server) currentKey() signingKey {
	s.keysMu.Lock()
	defer s.keysMu.Unlock()
	if len(s.keys) == 0 {
		s.keys = append(s.keys, newSigningKey(1))
	}
	return s.keys[len(s.keys)-1]
}

func newSigningKey(n int) signingKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return signingKey{id: fmt.Sprintf("key-%d", n), key: key}
}

// jwks serves the public keys of s (RFC 7517), the metadata's jwks_uri.
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) {
	s.keysMu.Lock()
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	for _, k := range s.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.id, Algorithm: string(jose.ES256), Use: "sig"})
	}
	s.keysMu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

// jwtAccessToken is the access token s issues with Config.JWT (RFC 9068):
// for the client, the resource and the scopes asked for, valid for the
// configured lifetime.
func (s *Server) jwtAccessToken(n int, client, resource string, scopes []string, lifetime int) string {
	now := time.Now()
	return s.Mint(map[string]any{
		"iss": s.URL, "sub": client, "client_id": client, "aud": resource,
		"scope": strings.Join(scopes, " "), "iat": now.Unix(), "exp": now.Add(time.Duration(lifetime) * time.Second).Unix(),
		"jti": fmt.Sprintf("at-%d", n),
	})
}
