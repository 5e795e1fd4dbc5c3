package oauth

import (
	"context"
	"errors"
	"net/http"
	"sync"
)

// maxKnown bounds how many MCP servers a handler remembers the discovery
// of; past it, the handler forgets them all and starts again (a handler
// usually serves one server).
const maxKnown = 16

// known remembers what discovery learnt about the MCP servers a handler
// authorized, so that another challenge does not fetch the metadata again.
// An entry is forgotten when the server refuses a token (its authorization
// server may have changed) and when a grant fails other than with an OAuth
// error (its token endpoint may have moved).
type known struct {
	mu      sync.Mutex
	servers map[string]*serverInfo // by server URL and challenged metadata URL
}

// discover returns what is known of the server req went to, discovering it
// if need be. A 401 that refused a token forgets what was known.
func (k *known) discover(ctx context.Context, o *Options, req *http.Request, resp *http.Response, ch challenge) (key string, _ *serverInfo, _ error) {
	key = serverKey(req.URL) + " " + ch.metadataURL
	k.mu.Lock()
	info := k.servers[key]
	if resp.StatusCode == http.StatusUnauthorized && bearerToken(req) != "" {
		info = nil
	}
	k.mu.Unlock()
	if info != nil {
		return key, info, nil
	}
	info, err := discover(ctx, o, req.URL.String(), ch)
	if err != nil {
		k.forget(key)
		return key, nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.servers == nil || len(k.servers) >= maxKnown {
		k.servers = map[string]*serverInfo{}
	}
	k.servers[key] = info
	return key, info, nil
}

// stale reports whether err, from a token request, may come from metadata
// that no longer holds: any failure but an OAuth error answer.
func stale(err error) bool {
	var e *Error
	return !errors.As(err, &e) || e.Code == ""
}

func (k *known) forget(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.servers, key)
}
