package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// The secrets of these tests, each of a kind the host is given: a URL's
// query value and a key in its path (Zapier's /mcp/<key>/), a header's
// value, an environment value.
const (
	queryKey  = "qk7Hs9Lw2Rt5Vb"
	pathKey   = "pk4f9a8b7c6d5e4f3a2b1c"
	headerKey = "hk_Zm8Nq3Xw6Yt1"
	envKey    = "ek-Pv2Lr9Jd4Gc7"
)

// Proves that what a server echoes of the secrets it was sent is masked
// wherever call, tools and info print its words: an HTTP error page that
// quotes the request's path, query and Authorization header ("Cannot POST
// /mcp?api_key=..."), a JSON-RPC error that does, and a stdio server's
// last words on stderr that print a value given with --env.
func TestEchoedSecretsNotShown(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "Cannot POST %s (Authorization: %s)\n", r.URL.RequestURI(), r.Header.Get("Authorization"))
	}))
	defer page.Close()
	rpc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID json.RawMessage }
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		msg, _ := json.Marshal("no access for " + r.URL.RequestURI() + " with " + r.Header.Get("Authorization"))
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32001,"message":%s}}`, req.ID, msg)
	}))
	defer rpc.Close()
	dir := t.TempDir()
	for _, srv := range []*httptest.Server{page, rpc} {
		url := srv.URL + "/mcp/" + pathKey + "/?api_key=" + queryKey
		for _, cmd := range [][]string{{"tools"}, {"info"}, {"call", "echo", "{}"}, {"tools", "-v"}} {
			r := mcpbridge(t, dir, "", nil, append(cmd, "--url", url, "--header", "Authorization: Bearer "+headerKey)...)
			if r.code == 0 {
				t.Fatalf("%s: exit 0", cmd)
			}
			noSecret(t, r, queryKey, pathKey, headerKey)
		}
	}

	leaky := hostileServer(t, "leaky")
	leaky = append([]string{"--env", "API_KEY=" + envKey}, leaky...)
	r := mcpbridge(t, dir, "", nil, append([]string{"call", "flaky", "{}"}, leaky...)...)
	expect(t, r, 3, "starting with API_KEY=")
	noSecret(t, r, envKey)
	r = mcpbridge(t, dir, "", nil, append([]string{"call", "flaky", "{}", "-v"}, leaky...)...)
	expect(t, r, 3, "starting with API_KEY=")
	noSecret(t, r, envKey)
}

// Proves that the gateway relays no secret of its servers' to its clients
// nor writes one to its log: a server's HTTP error page echoing the
// request's query, path key and Authorization header, and a stdio server's
// last words on stderr printing its config's env value, reach a client's
// isError result and serve's log masked.
func TestServeRelaysNoEchoedSecret(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, web := hostile.Start(t, "echo-secrets")
	dir := t.TempDir()
	config, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"web": map[string]any{"url": web.URL + "/mcp/" + pathKey + "/?api_key=" + queryKey,
			"headers": map[string]string{"Authorization": "Bearer " + headerKey}, "required": true},
		"local": map[string]any{"command": exe, "required": true,
			"env": map[string]string{hostile.ChildEnv: "leaky", "API_KEY": envKey, "GORACE": "atexit_sleep_ms=0"}},
	}})
	url, _, lines := startServe(t, "--config", writeConfig(t, dir, "mcp.json", string(config)), "-v")
	cs, _ := connectServe(t, url, "")
	for _, name := range []string{"web_echo", "web_flaky", "local_flaky"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		var data []byte
		switch {
		case name == "web_flaky": // the server's JSON-RPC error, relayed
			if err == nil || !strings.Contains(err.Error(), "not valid to POST") {
				t.Fatalf("%s: %v, want the server's error", name, err)
			}
			data = []byte(err.Error())
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		case !res.IsError:
			t.Fatalf("%s: %v, want an error", name, res)
		default:
			data, _ = json.Marshal(res)
		}
		for _, s := range []string{queryKey, pathKey, headerKey, envKey} {
			if strings.Contains(string(data), s) {
				t.Errorf("%s: the client is shown %q: %s", name, s, data)
			}
		}
	}
	cs.Close()
	var log strings.Builder
	for done := false; !done; {
		select {
		case l := <-lines:
			log.WriteString(l + "\n")
			done = strings.Contains(log.String(), "local_flaky") && strings.Contains(log.String(), "web_flaky")
		case <-t.Context().Done():
			done = true
		}
	}
	for _, s := range []string{queryKey, pathKey, headerKey, envKey} {
		if strings.Contains(log.String(), s) {
			t.Errorf("serve's log shows %q:\n%s", s, log.String())
		}
	}
}
