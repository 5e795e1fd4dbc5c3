// Package redact keeps secrets out of what is printed: the one place where
// a URL is made fit for an error or a log line ([URL], [URLs]), where text
// a model vendor sent back loses the keys it may echo ([Scrub]), and where
// a server's words lose the secrets the host gave it ([Secrets]).
package redact

import (
	"net/url"
	"strings"
)

// Mask stands for every secret left out.
const Mask = "…"

// URL returns raw fit to print: its scheme and host, with [Mask] for user
// info and for everything after the host. A password, a path (some services
// put a key in it: https://host/mcp/sk-…/sse), a query (?api_key=) and a
// fragment may each be secret. Something that is not an absolute URL is
// masked whole.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Mask
	}
	out := u.Scheme + "://"
	if u.User != nil {
		out += Mask + "@"
	}
	out += u.Host
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		out += "/" + Mask
	}
	return out
}

// URLs returns text with every http or https URL in it passed through
// [URL]: for the text of an error made elsewhere (net/http's *url.Error
// quotes the URL it requested), which may carry a URL anywhere. A URL ends
// at white space, a quote or an angle bracket; punctuation that ends a
// sentence or a clause is taken to follow it.
func URLs(text string) string {
	var b strings.Builder
	for {
		i := urlStart(text)
		if i < 0 {
			if b.Len() == 0 {
				return text // the common case: nothing copied
			}
			b.WriteString(text)
			return b.String()
		}
		end := strings.IndexAny(text[i:], " \t\r\n\"'<>`")
		if end < 0 {
			end = len(text) - i
		}
		u := strings.TrimRight(text[i:i+end], ".,;:!?)]}")
		b.WriteString(text[:i])
		b.WriteString(URL(u))
		text = text[i+len(u):]
	}
}

// urlStart returns the index of the first "http://" or "https://" in s, in
// any case, or -1.
func urlStart(s string) int {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "http://")
	if j := strings.Index(lower, "https://"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}
