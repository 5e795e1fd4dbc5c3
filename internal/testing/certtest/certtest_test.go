package certtest_test

import (
	"crypto/tls"
	"crypto/x509"
	"path/filepath"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/certtest"
)

// The pair written loads as a server's, and the pool returned trusts it
// for 127.0.0.1.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	pool := certtest.Write(t, "first", cert, key)
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "127.0.0.1"}); err != nil || pair.Leaf.Subject.CommonName != "first" {
		t.Errorf("%s: %v", pair.Leaf.Subject.CommonName, err)
	}
}
