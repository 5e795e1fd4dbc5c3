package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// readRedirect must read the redirect, not follow it: nothing listens on
// the redirect URI.
func TestReadRedirect(t *testing.T) {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/authorize" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, "http://127.0.0.1:1/callback?code=c1&state="+r.URL.Query().Get("state")+"&iss=https://as", http.StatusFound)
	}))
	defer as.Close()
	u, err := readRedirect(context.Background(), as.URL+"/authorize?state=s1")
	if err != nil {
		t.Fatal(err)
	}
	if q := u.Query(); q.Get("code") != "c1" || q.Get("state") != "s1" || q.Get("iss") != "https://as" {
		t.Errorf("redirect = %s", u)
	}
	if _, err := readRedirect(context.Background(), as.URL+"/elsewhere"); err == nil {
		t.Error("an answer without a redirect was taken for an authorization")
	}
}
