package cli

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/testing/certtest"
)

// The certificate served follows its files: a renewal written over them is
// served once certCheck has passed, and not before (a handshake stats the
// files at most once a second); a pair that does not load (a certificate
// written before its key) leaves the last good one in service, said once,
// until its key comes. Each file written is stamped with the bubble's
// clock, as a file system's coarse clock could give two writes of a fast
// test one time.
func TestCertFilesFollowARenewal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
		certtest.Write(t, "first", cert, key)
		stamp(t, cert, key)
		var logged bytes.Buffer
		c, err := loadCertFiles(cert, key, slog.New(slog.NewTextHandler(&logged, nil)))
		if err != nil {
			t.Fatal(err)
		}
		served := func() string {
			t.Helper()
			got, err := c.certificate(nil)
			if err != nil {
				t.Fatal(err)
			}
			return got.Leaf.Subject.CommonName
		}
		if got := served(); got != "first" {
			t.Fatalf("served %q", got)
		}
		time.Sleep(certCheck)
		if got := served(); got != "first" {
			t.Fatalf("served %q with its files unchanged", got)
		}
		certtest.Write(t, "second", cert, key)
		stamp(t, cert, key)
		if got := served(); got != "first" {
			t.Errorf("at once after the renewal: %q, want the files looked at once a second at most", got)
		}
		time.Sleep(certCheck)
		if got := served(); got != "second" {
			t.Errorf("%v after the renewal: %q, want second", certCheck, got)
		}

		// A certificate written before its key.
		other := t.TempDir()
		certtest.Write(t, "third", filepath.Join(other, "tls.crt"), filepath.Join(other, "tls.key"))
		copyFile(t, filepath.Join(other, "tls.crt"), cert)
		for range 3 {
			time.Sleep(certCheck)
			if got := served(); got != "second" {
				t.Errorf("with a certificate whose key is not written yet: %q, want the last good one", got)
			}
		}
		if n := strings.Count(logged.String(), "do not load"); n != 1 {
			t.Errorf("the broken pair logged %d times, want once:\n%s", n, logged.String())
		}
		copyFile(t, filepath.Join(other, "tls.key"), key)
		time.Sleep(certCheck)
		if got := served(); got != "third" {
			t.Errorf("once the key came: %q, want third", got)
		}
	})
}

// A pair that does not load stops serve from starting, naming the files,
// never quoting the key; so does a file larger than any certificate.
func TestCertFilesRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	certtest.Write(t, "first", cert, key)
	other := t.TempDir()
	certtest.Write(t, "other", filepath.Join(other, "tls.crt"), filepath.Join(other, "tls.key"))
	keyPEM, _ := os.ReadFile(filepath.Join(other, "tls.key"))
	copyFile(t, filepath.Join(other, "tls.key"), key)
	_, err := loadCertFiles(cert, key, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "TLS certificate "+cert+" and key "+key) || strings.Contains(err.Error(), string(keyPEM[30:60])) {
		t.Errorf("a key of another certificate: %v", err)
	}
	if err := os.WriteFile(cert, bytes.Repeat([]byte("a"), certFileLimit+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCertFiles(cert, key, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("a file of 1 MiB and more: %v", err)
	}
}

// copyFile copies from to to, stamped with the clock's time.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stamp(t, to)
}

// stamp sets the modification time of paths to the clock's time.
func stamp(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chtimes(p, time.Now(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}
