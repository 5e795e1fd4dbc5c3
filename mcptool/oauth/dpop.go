package oauth

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// dpop is the state of the DPoP proofs of one key (RFC 9449, MCP
// extension SEP-1932), shared by the two ends that send them:
//
//   - the client that sends token requests ([Options.HTTPClient], routed
//     through it by [Options.setup]): a token request (a form POST without
//     an Authorization token) gets a DPoP proof (htm, htu, iat, jti); a
//     use_dpop_nonce error from the token endpoint is retried once with the
//     nonce the server supplied (RFC 9449 section 8);
//   - the client of the MCP transport ([Transport]): a request carrying
//     "Authorization: Bearer T" is sent as "Authorization: DPoP T" with a
//     fresh proof that also carries ath, the hash of T; a 401 with
//     WWW-Authenticate: DPoP error="use_dpop_nonce" is retried once with
//     the server's nonce (section 9).
//
// go-sdk's auth.OAuthHandler can only supply a token, which the transport
// always sends as "Authorization: Bearer"; it cannot add the per-request
// proof, hence a RoundTripper. A token whose token endpoint answer said
// token_type Bearer (the server declined to bind it) is sent as Bearer
// with no proof. Nonces are remembered per origin; a DPoP-Nonce header in
// any answer replaces the remembered one.
type dpop struct {
	key crypto.Signer
	alg jose.SignatureAlgorithm

	mu     sync.Mutex
	nonces map[string]string // origin -> last nonce
	bearer map[[32]byte]bool // sha256(access token) of tokens issued as Bearer
}

// newDPoP returns the state of the proofs key signs.
func newDPoP(key crypto.Signer) (*dpop, error) {
	alg, err := algorithmFor(key)
	if err != nil {
		return nil, err
	}
	return &dpop{key: key, alg: alg, nonces: map[string]string{}, bearer: map[[32]byte]bool{}}, nil
}

// transport returns a RoundTripper that adds DPoP to requests sent through
// base (nil means http.DefaultTransport).
func (d *dpop) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &dpopTransport{d: d, base: base}
}

type dpopTransport struct {
	d    *dpop
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	token := ""
	if a := req.Header.Get("Authorization"); len(a) > 7 && (strings.EqualFold(a[:7], "Bearer ") || strings.EqualFold(a[:5], "DPoP ")) {
		token = bearerToken(req)
	}
	resource := token != ""
	if resource && t.d.isBearer(token) {
		return t.base.RoundTrip(req)
	}
	if !resource && !isTokenRequest(req) {
		// Discovery, registration, or an MCP message sent before there is
		// a token: no proof, and the answer (maybe an open event stream)
		// is not read here.
		return t.base.RoundTrip(req)
	}
	if req.Body != nil && req.GetBody == nil {
		// Make the body replayable for a nonce retry.
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	for attempt := 0; ; attempt++ {
		r, err := t.prepare(req, token, attempt)
		if err != nil {
			return nil, err
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		nonce := resp.Header.Get("DPoP-Nonce")
		if nonce != "" {
			t.d.setNonce(req, nonce)
		}
		if resource {
			if attempt == 0 && nonce != "" && resp.StatusCode == http.StatusUnauthorized && dpopNonceChallenge(resp) {
				drain(resp)
				continue
			}
			return resp, nil
		}
		// Token endpoint. Only a JSON answer is read ahead: anything else
		// is no token response and its body may never end.
		if !isJSON(resp.Header.Get("Content-Type")) {
			return resp, nil
		}
		if resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnauthorized {
			body := peek(resp)
			var e struct{ Error string }
			if json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce" && attempt == 0 && nonce != "" {
				drain(resp)
				continue
			}
		} else if resp.StatusCode == http.StatusOK {
			var tr struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
			}
			if json.Unmarshal(peek(resp), &tr) == nil && tr.AccessToken != "" && strings.EqualFold(tr.TokenType, "bearer") {
				t.d.markBearer(tr.AccessToken)
			}
		}
		return resp, nil
	}
}

// prepare clones req with a fresh proof (and the DPoP scheme for a token).
func (t *dpopTransport) prepare(req *http.Request, token string, attempt int) (*http.Request, error) {
	r := req.Clone(req.Context())
	if attempt > 0 && req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	proof, err := t.d.proof(req, token)
	if err != nil {
		return nil, &Error{Step: stepDPoP, Err: err}
	}
	r.Header.Set("DPoP", proof)
	if token != "" {
		r.Header.Set("Authorization", "DPoP "+token)
	}
	return r, nil
}

// proof signs a DPoP proof JWT for req; with a token it carries ath.
func (d *dpop) proof(req *http.Request, token string) (string, error) {
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	claims := map[string]any{
		"jti": rand.Text(),
		"htm": req.Method,
		"htu": u.String(),
		"iat": time.Now().Unix(),
	}
	if n := d.nonce(req); n != "" {
		claims["nonce"] = n
	}
	if token != "" {
		h := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(h[:])
	}
	return signJWT(d.key, d.alg, "dpop+jwt", "", true, claims)
}

func (d *dpop) nonce(req *http.Request) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.nonces[origin(req.URL)]
}

func (d *dpop) setNonce(req *http.Request, n string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.nonces[origin(req.URL)] = n
}

func (d *dpop) markBearer(token string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.bearer[sha256.Sum256([]byte(token))] = true
}

func (d *dpop) isBearer(token string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bearer[sha256.Sum256([]byte(token))]
}

// dpopNonceChallenge reports whether resp asks for a DPoP nonce.
func dpopNonceChallenge(resp *http.Response) bool {
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// isTokenRequest reports whether req looks like a token request: a form POST
// (RFC 6749 section 3.2), as postToken and golang.org/x/oauth2 send. MCP
// messages are JSON, so an MCP POST without a token is not mistaken for one.
func isTokenRequest(req *http.Request) bool {
	if req.Method != http.MethodPost {
		return false
	}
	mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return mt == "application/x-www-form-urlencoded"
}

func isJSON(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

// peek reads up to 1 MiB of resp's body and puts it back.
func peek(resp *http.Response) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	return b
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}
