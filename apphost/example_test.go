package apphost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A web agent mounts the host beside its own page, which loads /apps/host.js
// and renders an app with McpApps.render. Here the page's first request is
// made by hand: open the notes board of the server "notes", then load its
// frame, sandboxed under the policy its server declared.
func Example() {
	ctx := context.Background()
	notes := mcpclient.FromServer("notes", demo.New(), mcpclient.WithApps())
	if err := notes.Connect(ctx); err != nil {
		panic(err)
	}
	defer notes.Close()

	mux := http.NewServeMux()
	mux.Handle("/apps/", http.StripPrefix("/apps", apphost.New(apphost.Config{
		Servers: func(name string) (*mcptool.Provider, bool) { return (*mcptool.Provider)(notes), name == "notes" },
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/apps/open", strings.NewReader(`{"server":"notes","tool":"notes_board"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	var opened struct{ Src, Sandbox string }
	json.NewDecoder(res.Body).Decode(&opened)
	res.Body.Close()
	fmt.Println("iframe sandbox:", opened.Sandbox)

	res, err = client.Get(srv.URL + "/apps/" + opened.Src)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	for _, directive := range strings.Split(res.Header.Get("Content-Security-Policy"), "; ") {
		fmt.Println(directive)
	}
	// Output:
	// iframe sandbox: allow-scripts allow-forms
	// default-src 'none'
	// script-src 'unsafe-inline'
	// style-src 'unsafe-inline'
	// img-src data:
	// font-src data:
	// media-src data:
	// connect-src 'none'
	// frame-src 'none'
	// base-uri 'self'
	// object-src 'none'
	// form-action 'none'
	// sandbox allow-scripts allow-forms
}
