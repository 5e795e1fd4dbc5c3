package oauthtest

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Grant types and token types the token endpoint knows.
const (
	grantAuthorizationCode = "authorization_code"
	grantRefreshToken      = "refresh_token"
	grantTokenExchange     = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDJAG         = "urn:ietf:params:oauth:token-type:id-jag"
	assertionType          = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// token is the token endpoint. A token-exchange request gets an ID-JAG (as
// an enterprise identity provider issues); every other grant an access
// token for the MCP server.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Redirect != "" {
		http.Redirect(w, r, s.cfg.Redirect, http.StatusTemporaryRedirect)
		return
	}
	r.ParseForm()
	f := r.PostForm
	grant := f.Get("grant_type")
	s.mu.Lock()
	s.grants = append(s.grants, grant)
	s.mu.Unlock()
	jkt, e := s.judge(r, f)
	if e != nil {
		if e.Code == "use_dpop_nonce" {
			s.count("nonce " + r.URL.Path)
			w.Header().Set("DPoP-Nonce", "as-nonce")
		}
		writeJSON(w, e.Status, map[string]string{"error": e.Code, "error_description": e.Description})
		return
	}
	scopes := strings.Fields(f.Get("scope"))
	switch grant {
	case grantAuthorizationCode:
		scopes = strings.Fields(strings.TrimPrefix(f.Get("code"), "code-"))
	case grantRefreshToken:
		scopes, _ = s.refreshScopes(f.Get("refresh_token")) // judged
	}
	s.Tokens.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.tokens) + 1
	if grant == grantTokenExchange {
		jag := fmt.Sprintf("jag-%d", n)
		s.tokens[jag] = scopes
		writeJSON(w, http.StatusOK, map[string]any{"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A", "expires_in": 300})
		return
	}
	at := fmt.Sprintf("at-%d", n)
	if s.cfg.JWT {
		client := f.Get("client_id")
		if id, _, ok := r.BasicAuth(); ok {
			client = id
		}
		at = s.jwtAccessToken(n, client, f.Get("resource"), scopes, cmp.Or(s.cfg.ExpiresIn, 3600))
	}
	if jkt != "" {
		at += "." + jkt // the binding, for the MCP server's check
	}
	s.tokens[at] = scopes
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "scope": strings.Join(scopes, " ")}
	if s.cfg.ExpiresIn != 0 {
		resp["expires_in"] = s.cfg.ExpiresIn
	}
	if s.cfg.DPoP {
		resp["token_type"] = "DPoP"
	}
	if s.cfg.Refresh && !(s.cfg.KeepRefresh && grant == grantRefreshToken) {
		rt := fmt.Sprintf("rt-%d", n)
		s.refreshes[rt] = scopes
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// judge returns why the token request r with form f is refused, or nil
// and, with DPoP, the thumbprint of the key to bind the token to.
func (s *Server) judge(r *http.Request, f url.Values) (jkt string, _ *Refusal) {
	if s.cfg.DPoP {
		var err error
		jkt, err = s.checkProof(r, "")
		if err == errNonce {
			return "", &Refusal{http.StatusBadRequest, "use_dpop_nonce", "nonce required"}
		}
		if err != nil {
			return "", &Refusal{http.StatusBadRequest, "invalid_dpop_proof", err.Error()}
		}
	}
	grant := f.Get("grant_type")
	// go-sdk's refresh (golang.org/x/oauth2) sends no resource; an
	// exchange's resource is the MCP server the ID-JAG is for.
	if grant != grantTokenExchange && grant != grantRefreshToken && !s.serves(f.Get("resource")) {
		return "", &Refusal{http.StatusBadRequest, "invalid_target", "resource " + f.Get("resource")}
	}
	if e := s.authenticate(r, f); e != nil {
		return "", e
	}
	switch grant {
	case grantAuthorizationCode:
		h := sha256.Sum256([]byte(f.Get("code_verifier")))
		s.mu.Lock()
		ok := base64.RawURLEncoding.EncodeToString(h[:]) == s.challenge
		s.mu.Unlock()
		if !ok {
			return "", &Refusal{http.StatusBadRequest, "invalid_grant", "PKCE verifier does not match"}
		}
	case grantRefreshToken:
		if _, ok := s.refreshScopes(f.Get("refresh_token")); !ok {
			return "", &Refusal{http.StatusBadRequest, "invalid_grant", "unknown refresh token"}
		}
	}
	if s.cfg.Check != nil {
		if e := s.cfg.Check(r, f); e != nil {
			return "", e
		}
	}
	return jkt, nil
}

func (s *Server) refreshScopes(token string) ([]string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scopes, ok := s.refreshes[token]
	return scopes, ok
}

// authenticate checks the client authentication of a token request against
// Clients and Keys, if either is set.
func (s *Server) authenticate(r *http.Request, f url.Values) *Refusal {
	if s.cfg.Clients == nil && s.cfg.Keys == nil {
		return nil
	}
	method, id, err := "client_secret_post", f.Get("client_id"), error(nil)
	switch {
	case f.Get("client_assertion") != "":
		method = "private_key_jwt"
		id, err = s.verifyAssertion(f)
	case r.Header.Get("Authorization") != "":
		method = "client_secret_basic"
		var secret string
		id, secret, _ = r.BasicAuth()
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if want, ok := s.cfg.Clients[id]; !ok || secret != want {
			err = fmt.Errorf("bad client credentials")
		}
	default:
		if want, ok := s.cfg.Clients[id]; !ok || f.Get("client_secret") != want {
			err = fmt.Errorf("bad client credentials")
		}
	}
	if err == nil && len(s.cfg.AuthMethods) > 0 && !slices.Contains(s.cfg.AuthMethods, method) {
		err = fmt.Errorf("%s is not supported", method)
	}
	if err != nil {
		return &Refusal{http.StatusUnauthorized, "invalid_client", err.Error()}
	}
	return nil
}

// verifyAssertion verifies a private_key_jwt client assertion (RFC 7523
// section 2.2) and returns its client ID.
func (s *Server) verifyAssertion(f url.Values) (string, error) {
	if f.Get("client_assertion_type") != assertionType || f.Get("client_secret") != "" {
		return "", fmt.Errorf("bad client assertion type")
	}
	jws, err := jose.ParseSigned(f.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256, jose.RS256, jose.EdDSA})
	if err != nil {
		return "", err
	}
	var c struct {
		Iss, Sub, Aud, Jti string
		Exp                int64
	}
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &c); err != nil {
		return "", err
	}
	key, ok := s.cfg.Keys[c.Iss]
	if !ok {
		return "", fmt.Errorf("unknown client %q", c.Iss)
	}
	if _, err := jws.Verify(key); err != nil {
		return "", fmt.Errorf("bad signature")
	}
	if c.Sub != c.Iss || c.Aud != s.URL && c.Aud != s.URL+"/token" || c.Jti == "" || c.Exp <= time.Now().Unix() {
		return "", fmt.Errorf("bad claims")
	}
	return c.Iss, nil
}
