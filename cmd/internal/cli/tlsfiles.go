package cli

import (
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The bounds of serving a certificate from files.
const (
	// certCheck is how often the files are looked at again: a handshake
	// costs two stats at most once a second, and a renewal is served
	// within a second of its files being written.
	certCheck = time.Second
	// certFileLimit bounds what is read of either file: a certificate
	// chain and its key take a few KB.
	certFileLimit = 1 << 20
)

// A tlsConfig is the "tls" object of a config file's "gateway": the PEM
// files of serve's certificate and key, a relative path taken from the
// config file's directory.
type tlsConfig struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

// certFiles serves the certificate of a pair of PEM files and follows them
// as they change, as cert-manager renews a certificate or a Kubernetes
// Secret's volume is updated (a link swapped to new files): a handshake
// looks at both files at most every certCheck, and reads the pair again
// when either's modification time, size or identity changed. A pair that
// does not load (its files written one after the other, say) leaves the
// last good one in service, logged once, and is tried again at the next
// change.
type certFiles struct {
	certPath, keyPath string
	log               *slog.Logger

	mu      sync.Mutex
	current *tls.Certificate
	seen    [2]os.FileInfo // the files as last looked at
	checked time.Time
}

// loadCertFiles reads the pair, which must load: a gateway does not start
// without its certificate.
func loadCertFiles(certPath, keyPath string, log *slog.Logger) (*certFiles, error) {
	c := &certFiles{certPath: certPath, keyPath: keyPath, log: log}
	seen, err := c.stat()
	if err != nil {
		return nil, err
	}
	if c.current, err = c.load(); err != nil {
		return nil, err
	}
	c.seen, c.checked = seen, time.Now()
	return c, nil
}

// config is the TLS configuration of an endpoint served with c: HTTP/2
// offered first, TLS 1.2 at the least.
func (c *certFiles) config() *tls.Config {
	return &tls.Config{GetCertificate: c.certificate, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
}

// certificate is the certificate a handshake is served: the pair read
// last, read again first if the files changed.
func (c *certFiles) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.checked) < certCheck {
		return c.current, nil
	}
	c.checked = time.Now()
	seen, err := c.stat()
	if err != nil || sameFiles(seen, c.seen) {
		return c.current, nil // a file gone for a moment (a link being swapped) changes nothing
	}
	c.seen = seen
	cert, err := c.load()
	if err != nil {
		c.log.Warn("serve: the TLS certificate's files changed but do not load; the last good pair is served", "err", err)
		return c.current, nil
	}
	c.current = cert
	c.log.Info("serve: TLS certificate read again", "cert", c.certPath)
	return c.current, nil
}

func (c *certFiles) stat() ([2]os.FileInfo, error) {
	var out [2]os.FileInfo
	for i, path := range []string{c.certPath, c.keyPath} {
		fi, err := os.Stat(path)
		if err != nil {
			return out, err
		}
		out[i] = fi
	}
	return out, nil
}

// sameFiles reports whether a and b are the same files, unchanged.
func sameFiles(a, b [2]os.FileInfo) bool {
	for i := range a {
		if a[i] == nil || b[i] == nil || !os.SameFile(a[i], b[i]) || !a[i].ModTime().Equal(b[i].ModTime()) || a[i].Size() != b[i].Size() {
			return false
		}
	}
	return true
}

// load reads the pair, each file within certFileLimit.
func (c *certFiles) load() (*tls.Certificate, error) {
	certPEM, err := readBounded(c.certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := readBounded(c.keyPath)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// The key's PEM is never quoted.
		return nil, fmt.Errorf("TLS certificate %s and key %s: %w", c.certPath, c.keyPath, err)
	}
	return &cert, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, certFileLimit+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case len(data) > certFileLimit:
		return nil, fmt.Errorf("%s: larger than %d bytes: not a certificate or a key", path, certFileLimit)
	}
	return data, nil
}

// tlsFiles returns serve's certificate and key files: the flags', else the
// config's (relative to its directory), both or neither.
func tlsFiles(certFlag, keyFlag string, file *tlsConfig, configPath string) (cert, key string, err error) {
	cert, key = certFlag, keyFlag
	if cert == "" && key == "" && file != nil {
		cert, key = file.Cert, file.Key
		for _, p := range []*string{&cert, &key} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(filepath.Dir(configPath), *p)
			}
		}
	}
	if (cert == "") != (key == "") {
		return "", "", Usagef("--tls-cert and --tls-key (or \"gateway\".\"tls\"'s \"cert\" and \"key\") go together: give both")
	}
	return cert, key, nil
}
