// The rules by which go-sdk's streamable HTTP handler refuses a request
// before reading it, which it does not export.

package sdkfix

import (
	"mime"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// Rebound reports whether r reached a loopback address under a host name
// that is not loopback: a page of another site that a browser was made to
// send to this machine (DNS rebinding), which go-sdk's streamable HTTP
// handler refuses with 403. A handler that answers before go-sdk does, or
// in its place, refuses by this rule so that it refuses what go-sdk would.
func Rebound(r *http.Request) bool {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return local != nil && Loopback(local.String()) && !Loopback(r.Host)
}

// Loopback reports whether addr, a host with or without a port, is
// localhost or a loopback IP, by go-sdk's rule (its unexported
// internal/util.IsLoopback).
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// HostAllowed reports whether host, a request's Host header, is one of
// names, each a name with or without a port: "apps.example" takes any
// port, "apps.example:8443" that port alone. No names takes loopback
// names alone, by [Loopback].
func HostAllowed(host string, names []string) bool {
	if len(names) == 0 {
		return Loopback(host)
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return slices.Contains(names, host) || slices.Contains(names, name)
}

// Accepts reports whether go-sdk's streamable HTTP handler takes a POST
// with headers h, by its rule (its unexported baseMediaType and
// streamableAccepts): a Content-Type of application/json that parses,
// parameters and all, and an Accept that takes both JSON and an event
// stream. A handler that answers a POST before go-sdk's takes only these.
func Accepts(h http.Header) bool {
	if ct, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || ct != "application/json" {
		return false
	}
	var jsonOK, streamOK bool
	for _, v := range h.Values("Accept") {
		for _, raw := range strings.Split(v, ",") {
			base, _, _ := strings.Cut(strings.TrimSpace(raw), ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}
