package redact

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// secretShaped reports whether a value is long enough to be masked: 8
// bytes or more, or 5 holding both letters and digits (s3cret). A shorter
// or plainer one ("1", "true", "stderr") is a setting more often than a
// secret, and masking it everywhere would garble what a server says.
func secretShaped(v string) bool {
	return len(v) >= 8 || len(v) >= 5 && strings.ContainsFunc(v, unicode.IsLetter) && strings.ContainsFunc(v, unicode.IsDigit)
}

// Secrets are the values a host knows to be secret: what it was given as
// a header or environment value for a server, and the secret parts of the
// server's URL. [Secrets.Mask] takes them out of a server's words before
// the host prints them or passes them on (an error page that echoes the
// request, a stderr line that prints the server's configuration). The
// zero Secrets holds none. A Secrets is immutable, and safe for
// concurrent use.
type Secrets struct {
	values []string          // longest first
	r      *strings.Replacer // each value, and its encodings, to Mask
}

// With returns s and values, with the last word of a value of several
// (the credential of "Bearer <token>"); of these, those too short or plain
// to be secrets are left out (see secretShaped).
func (s Secrets) With(values ...string) Secrets {
	var add []string
	for _, v := range values {
		add = append(add, v)
		if i := strings.LastIndexFunc(v, unicode.IsSpace); i >= 0 {
			add = append(add, v[i+1:])
		}
	}
	return s.add(add)
}

// WithURL returns s and the secret parts of the URL raw: its user name and
// password, the value of every query parameter, and every segment of its
// path shaped like a key (some services put one there:
// https://host/mcp/<key>/sse). A value that is not a URL adds nothing.
func (s Secrets) WithURL(raw string) Secrets {
	u, err := url.Parse(raw)
	if err != nil {
		return s
	}
	var add []string
	if u.User != nil {
		pw, _ := u.User.Password()
		add = append(add, u.User.Username(), pw)
	}
	for _, vs := range u.Query() {
		add = append(add, vs...)
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if keyShaped(seg) {
			add = append(add, seg)
		}
	}
	return s.add(add)
}

// keyShaped reports whether a path segment looks like a key rather than a
// word of a route (mcp, sse, v1, 2025-11-25): 16 bytes or more, or 8 or
// more holding both letters and digits.
func keyShaped(seg string) bool {
	letters := strings.ContainsFunc(seg, unicode.IsLetter)
	digits := strings.ContainsFunc(seg, unicode.IsDigit)
	return len(seg) >= 16 || len(seg) >= 8 && letters && digits
}

// add returns s with the values shaped like secrets added, each once.
func (s Secrets) add(values []string) Secrets {
	out := slices.Clone(s.values)
	for _, v := range values {
		if secretShaped(v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == len(s.values) {
		return s
	}
	// Longest first: a Replacer tries its strings in the order given, so
	// a secret holding another is masked whole.
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	var pairs []string
	for _, v := range out {
		pairs = append(pairs, v, Mask)
		// As a server may echo it: in a URL's query or path.
		for _, enc := range []string{url.QueryEscape(v), url.PathEscape(v)} {
			if enc != v && !slices.Contains(pairs, enc) {
				pairs = append(pairs, enc, Mask)
			}
		}
	}
	return Secrets{values: out, r: strings.NewReplacer(pairs...)}
}

// Mask returns text with every secret of s, as it is or as a URL encodes
// it, replaced by [Mask].
func (s Secrets) Mask(text string) string {
	if s.r == nil {
		return text
	}
	return s.r.Replace(text)
}

// Empty reports whether s holds no secret.
func (s Secrets) Empty() bool { return len(s.values) == 0 }
