package apphost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/apphost"
	"github.com/mcpbridge/mcpbridge/mcptool"
)

// newBoard returns an MCP server with an app, built with go-sdk: the tool
// notes_board names its interface, a ui:// resource of HTML, in its _meta.
func newBoard() *mcp.Server {
	const uri, mime = "ui://notes/board.html", "text/html;profile=mcp-app"
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{
		Name:        "notes_board",
		Description: "Show the notes as a board.",
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": uri}},
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no notes yet"}}}, nil, nil
	})
	server.AddResource(&mcp.Resource{URI: uri, Name: "notes_board", MIMEType: mime},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime,
				Text: "<!DOCTYPE html><title>Notes</title><p id=board></p>"}}}, nil
		})
	return server
}

// A web agent mounts the host beside its own page, which loads /apps/host.js
// and renders an app with McpApps.render. Here the page's first request is
// made by hand: open the notes board of the server "notes", then load its
// frame, sandboxed under the policy its server declared.
//
// Served on a loopback address, the host answers to loopback names alone:
// a page of another site whose name was made to resolve to 127.0.0.1 (DNS
// rebinding) is refused. To serve the apps by another name, list it in
// Config.Hosts, and guard the page and the host as the rest of the site,
// for the host does not authenticate the page (mcpbridge web requires a
// secret made for the run).
func ExampleNew() {
	ctx := context.Background()
	notes := mcptool.FromServer(newBoard(), &mcptool.Options{Name: "notes", Apps: true})
	if err := notes.Connect(ctx); err != nil {
		panic(err)
	}
	defer notes.Close()

	mux := http.NewServeMux()
	mux.Handle("/apps/", http.StripPrefix("/apps", apphost.New(apphost.Config{
		Servers: func(name string) (*mcptool.Provider, bool) { return notes, name == "notes" },
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	open := func(host string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/apps/open", strings.NewReader(`{"server":"notes","tool":"notes_board"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Host = host
		res, err := client.Do(req)
		if err != nil {
			panic(err)
		}
		return res
	}

	res := open("evil.example")
	res.Body.Close()
	fmt.Println("a page of evil.example:", res.Status)

	res = open("")
	var opened struct{ Src, Sandbox string }
	json.NewDecoder(res.Body).Decode(&opened)
	res.Body.Close()
	fmt.Println("iframe sandbox:", opened.Sandbox)

	res, err := client.Get(srv.URL + "/apps/" + opened.Src)
	if err != nil {
		panic(err)
	}
	res.Body.Close()
	for _, directive := range strings.Split(res.Header.Get("Content-Security-Policy"), "; ") {
		fmt.Println(directive)
	}
	// Output:
	// a page of evil.example: 403 Forbidden
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
