package main_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/testing/certtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// serve --tls-cert --tls-key serves HTTPS on 127.0.0.1:0, HTTP/2 offered,
// and an MCP client lists the tools over it; the pair written again (a
// renewal) is served to the next connection, and the old certificate no
// more, the gateway running on. Its probes answer bare, and --status-http
// serves the servers' states on loopback.
func TestServeTLSFollowsARenewal(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	first := certtest.Write(t, "first", cert, key)
	_, stderr := started(t, append(append(os.Environ(), "NO_COLOR=1"), ownCache(t)...), os.Kill,
		"serve", "--http", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key, "--status-http", "127.0.0.1:0")
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "mcpbridge gateway: ") {
	}
	banner := sc.Text()
	go io.Copy(io.Discard, stderr)
	m := regexp.MustCompile(`^mcpbridge gateway: (https://\S+)/mcp \(health: /healthz, /readyz; status: (http://\S+)/readyz\)$`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("banner %q", banner)
	}
	base, status := m[1], m[2]

	client := func(pool *x509.CertPool) *http.Client {
		return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true, DisableKeepAlives: true}}
	}
	get := func(c *http.Client, url string) (*http.Response, string, error) {
		resp, err := c.Get(url)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body), nil
	}
	resp, body, err := get(client(first), base+"/readyz")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Proto != "HTTP/2.0" || resp.TLS.PeerCertificates[0].Subject.CommonName != "first" || strings.Contains(body, "servers") {
		t.Errorf("/readyz over TLS: %s %s %q %s, want 200 over HTTP/2, certificate first, no servers", resp.Status, resp.Proto, resp.TLS.PeerCertificates[0].Subject.CommonName, body)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client(first)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	cs.Close()
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools over TLS: %v %v", tools, err)
	}
	if _, body, err := get(http.DefaultClient, status+"/readyz"); err != nil || !strings.Contains(body, `"name":"demo","state":"ready"`) {
		t.Errorf("the status address: %s %v, want the servers' states", body, err)
	}

	second := certtest.Write(t, "second", cert, key)
	proctest.Eventually(t, "the renewed certificate served", func() bool {
		_, _, err := get(client(second), base+"/healthz")
		return err == nil
	})
	if _, _, err := get(client(first), base+"/healthz"); err == nil {
		t.Error("the certificate renewed is still served")
	}
}

// TLS goes with --http, cert with key, and the status address is
// loopback's: each mistake is a usage error.
func TestServeTLSAndStatusUsage(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	certtest.Write(t, "first", cert, key)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", cert}, "--tls-cert and --tls-key"},
		{[]string{"--tls-cert", cert, "--tls-key", key}, "TLS is for --http"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", key, "--tls-key", key}, "TLS certificate " + key},
		{[]string{"--http", "127.0.0.1:0", "--status-http", ":9090"}, "--status-http :9090: want a loopback host:port"},
	} {
		r := mcpbridge(t, dir, "", nil, append([]string{"serve"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.err, c.want) {
			t.Errorf("serve %q: status %d, stderr:\n%s\nwant 2 and %q", c.args, r.code, r.err, c.want)
		}
	}
}

// The pair may be named in the config's "gateway"."tls", relative to the
// config file's directory.
func TestServeTLSFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	pool := certtest.Write(t, "from the config", filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key"))
	_, srv := hostile.Start(t, "")
	config := writeConfig(t, dir, "mcp.json", `{"mcpServers": {"h": {"url": "`+srv.URL+`"}}, "gateway": {"tls": {"cert": "tls.crt", "key": "tls.key"}}}`)
	_, stderr := started(t, append(os.Environ(), "NO_COLOR=1"), os.Kill, "serve", "--config", config, "--http", "127.0.0.1:0")
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "mcpbridge gateway: ") {
	}
	go io.Copy(io.Discard, stderr)
	base, _, _ := strings.Cut(strings.TrimPrefix(sc.Text(), "mcpbridge gateway: "), "/mcp")
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(base + "/healthz")
	if err != nil {
		t.Fatalf("%s: %v", sc.Text(), err)
	}
	resp.Body.Close()
	if resp.TLS == nil || resp.TLS.PeerCertificates[0].Subject.CommonName != "from the config" {
		t.Errorf("served %v", resp.TLS)
	}
}
