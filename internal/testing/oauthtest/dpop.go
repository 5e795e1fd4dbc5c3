package oauthtest

import (
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// errNonce is a proof without the nonce the server requires.
var errNonce = errors.New("nonce required")

// checkProof verifies the DPoP proof of r (RFC 9449 section 4.3) and returns
// the thumbprint of its key. With token, ath must be its hash. With
// Config.DPoPNonce, the proof must carry the server's nonce ("as-nonce" at
// the token endpoint, "rs-nonce" at the MCP server), else errNonce.
func (s *Server) checkProof(r *http.Request, token string) (string, error) {
	p := r.Header.Values("DPoP")
	if len(p) != 1 {
		return "", fmt.Errorf("want one DPoP header, got %d", len(p))
	}
	jws, err := jose.ParseSigned(p[0], []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return "", err
	}
	h := jws.Signatures[0].Protected
	if h.ExtraHeaders["typ"] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return "", fmt.Errorf("bad proof header")
	}
	payload, err := jws.Verify(h.JSONWebKey)
	if err != nil {
		return "", err
	}
	var c struct {
		JTI, HTM, HTU, Nonce, ATH string
		IAT                       int64
	}
	json.Unmarshal(payload, &c)
	if c.HTM != r.Method || c.HTU != s.URL+r.URL.Path || c.JTI == "" || time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute {
		return "", fmt.Errorf("bad proof claims %+v", c)
	}
	s.mu.Lock()
	replayed := s.jtis[c.JTI]
	s.jtis[c.JTI] = true
	s.mu.Unlock()
	if replayed {
		return "", fmt.Errorf("replayed jti")
	}
	want := "as-nonce"
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if c.ATH != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return "", fmt.Errorf("bad ath")
		}
		want = "rs-nonce"
	}
	if s.cfg.DPoPNonce && c.Nonce != want {
		return "", errNonce
	}
	tp, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	return base64.RawURLEncoding.EncodeToString(tp), err
}
