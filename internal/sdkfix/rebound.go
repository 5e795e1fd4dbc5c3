package sdkfix

import (
	"net"
	"net/http"
	"net/netip"
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
