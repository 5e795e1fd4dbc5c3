package cli

import (
	"crypto/tls"
	"flag"
	"log/slog"
	"net"
	"strings"
)

// addTLSFlags adds --tls-cert and --tls-key, which serve and web take
// alike.
func addTLSFlags(fs *flag.FlagSet) (cert, key *string) {
	cert = fs.String("tls-cert", "", "serve HTTPS with the certificate (chain) of the PEM `FILE`, read again when it changes (needs --tls-key)")
	key = fs.String("tls-key", "", "the private key of --tls-cert, a PEM `FILE`")
	return cert, key
}

// PageFlags say where a command serves a page to a browser (web's --http)
// and, as serve takes them, the certificate it serves it with (--tls-cert,
// --tls-key) and the names it is reached by (--allow-host).
type PageFlags struct {
	addr, cert, key *string
	hosts           multi
}

// AddPageFlags adds --http (by default def), --tls-cert, --tls-key and
// --allow-host to fs.
func AddPageFlags(fs *flag.FlagSet, def string) *PageFlags {
	f := &PageFlags{addr: fs.String("http", def, "serve the page on `ADDR`; port 0 is a free one; an address that is not loopback needs --tls-cert, --tls-key and --allow-host")}
	f.cert, f.key = addTLSFlags(fs)
	fs.Var(&f.hosts, "allow-host", "answer only requests whose Host is `HOST`, the page's name (repeatable; default: loopback names)")
	return f
}

// A PageListener is where a page is served.
type PageListener struct {
	// Listener accepts the page's connections: TLS ones when a
	// certificate was given, its files followed as they are renewed.
	net.Listener
	// URL is the page's address, without a path: https or http, the first
	// --allow-host or else the address listened on, and the port.
	URL string
	// Hosts are the names a request's Host may give: --allow-host's; nil
	// for loopback names alone.
	Hosts []string
}

// check refuses an address that is not loopback unless the page is served
// over TLS and named: in clear, the run's secret and all the page shows
// would cross the network, and any name that resolves to the machine
// would reach it.
func (f *PageFlags) check() error {
	host, _, err := net.SplitHostPort(*f.addr)
	if err != nil {
		return Usagef("--http %s: want host:port, such as 127.0.0.1:8080", *f.addr)
	}
	if (*f.cert == "") != (*f.key == "") {
		return Usagef("--tls-cert and --tls-key go together: give both")
	}
	if isLoopback(*f.addr) {
		return nil
	}
	where := *f.addr
	if host == "" {
		where += " (every interface)"
	}
	switch {
	case *f.cert == "":
		return Usagef("--http %s is not a loopback address: the page, its secret and all it shows would cross the network in clear; serve HTTPS with --tls-cert FILE --tls-key FILE, and name the page with --allow-host HOST", where)
	case len(f.hosts) == 0:
		return Usagef("--http %s is not a loopback address: name the page with --allow-host HOST (the name in its address), so that no other name made to resolve to this machine reaches it", where)
	}
	return nil
}

// Listen listens where the flags say, having checked them: an address
// that is not loopback is refused, saying why, unless the page is served
// over TLS (--tls-cert, --tls-key) and named (--allow-host). A
// certificate that does not load, or an address in use, is the user's to
// fix. log says a renewed certificate that does not load.
func (f *PageFlags) Listen(log *slog.Logger) (*PageListener, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	var cfg *tls.Config
	if *f.cert != "" {
		certs, err := loadCertFiles(*f.cert, *f.key, log)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		cfg = certs.config()
	}
	ln, err := listen(*f.addr)
	if err != nil {
		return nil, err
	}
	p, scheme, where := &PageListener{Listener: ln, Hosts: f.hosts}, "http", ln.Addr().String()
	if cfg != nil {
		p.Listener, scheme = tls.NewListener(ln, cfg), "https"
	}
	if len(f.hosts) > 0 {
		_, port, _ := net.SplitHostPort(where)
		if where = f.hosts[0]; !hasPort(where) {
			where = net.JoinHostPort(strings.Trim(where, "[]"), port)
		}
	}
	p.URL = scheme + "://" + where
	return p, nil
}

func hasPort(hostport string) bool {
	_, _, err := net.SplitHostPort(hostport)
	return err == nil
}
