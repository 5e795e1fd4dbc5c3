package cli

import (
	"flag"
	"strings"
	"testing"
)

// A page on an address that is not loopback is served only over TLS and
// by the names given: each refusal says what is missing and why; loopback
// needs neither.
func TestPageFlagsCheck(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" for accepted
	}{
		{nil, ""},
		{[]string{"--http", "localhost:8080"}, ""},
		{[]string{"--http", "[::1]:0", "--tls-cert", "c", "--tls-key", "k"}, ""},
		{[]string{"--http", "0.0.0.0:8080"}, "--http 0.0.0.0:8080 is not a loopback address: the page, its secret and all it shows would cross the network in clear; serve HTTPS with --tls-cert FILE --tls-key FILE"},
		{[]string{"--http", ":8080"}, "--http :8080 (every interface) is not a loopback address"},
		{[]string{"--http", "192.168.1.5:80", "--allow-host", "box"}, "in clear"},
		{[]string{"--http", "[::]:8443", "--tls-cert", "c", "--tls-key", "k"}, "name the page with --allow-host HOST"},
		{[]string{"--http", "0.0.0.0:8443", "--tls-cert", "c"}, "--tls-cert and --tls-key go together"},
		{[]string{"--http", "0.0.0.0:8443", "--tls-cert", "c", "--tls-key", "k", "--allow-host", "box.example"}, ""},
		{[]string{"--http", "8080"}, "want host:port"},
	} {
		fs := flag.NewFlagSet("web", flag.ContinueOnError)
		f := AddPageFlags(fs, "127.0.0.1:0")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := f.check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}
