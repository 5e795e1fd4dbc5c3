package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// modes are every mode by name. Each class of misbehaviour has its own file
// of modes; this table names them all.
var modes = map[string]mode{
	"": {doc: "a well-behaved server with the tools echo and flaky"},

	// The handshake and the listing.
	"ignore-discover": {doc: "never answers server/discover", answer: ignore("server/discover")},
	"hang":            {doc: "never answers server/discover or initialize", answer: ignore("server/discover", "initialize")},
	"exit-at-init":    {doc: "exits with status 3 at initialize, saying why on stderr", answer: exitAtInit},
	"bad-version":     {doc: "answers initialize with protocol version 1999-01-01", answer: badVersion},
	"cursor-loop":     {doc: "lists with a cursor that repeats", answer: cursorLoop},
	"endless":         {doc: "lists with a new cursor on every page, for ever", answer: endless},
	"pages":           {doc: "lists three pages of one tool each", answer: pages},
	"no-skills":       {doc: "refuses skills/list", answer: noSkills},
	"stderr":          {doc: "writes a line to stderr as it starts"},

	// HTTP and SSE trust (over HTTP only; see Server.Handler).
	"redirect":      {doc: "answers every HTTP request with a 307 to the same path at the origin of SetElsewhere", http: redirect},
	"events":        {doc: "answers each POSTed request with an event stream, the answer one event", http: func(s *Server) http.Handler { return posts(s, true) }},
	"sse":           {doc: "speaks the legacy HTTP+SSE transport: a GET stream names the POST endpoint and carries the answers", http: legacySSE(false)},
	"sse-elsewhere": {doc: "speaks legacy SSE, but its stream names an endpoint at the origin of SetElsewhere", http: legacySSE(true)},
}

func ignore(methods ...string) func(*Server, *Request) (string, bool) {
	return func(_ *Server, req *Request) (string, bool) {
		for _, m := range methods {
			if req.Method == m {
				return "", true
			}
		}
		return "", false
	}
}

func exitAtInit(_ *Server, req *Request) (string, bool) {
	if req.Method != "initialize" {
		return "", false
	}
	fmt.Fprintln(os.Stderr, "fatal: no configuration")
	os.Exit(3)
	return "", true
}

func badVersion(_ *Server, req *Request) (string, bool) {
	if req.Method != "initialize" {
		return "", false
	}
	return Result(req.ID, InitializeResult("1999-01-01")), true
}

func cursor(req *Request) string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(req.Params, &p)
	return p.Cursor
}

func cursorLoop(_ *Server, req *Request) (string, bool) {
	if req.Method != "tools/list" {
		return "", false
	}
	return Result(req.ID, map[string]any{"tools": []any{Echo}, "nextCursor": "again"}), true
}

func endless(_ *Server, req *Request) (string, bool) {
	if req.Method != "tools/list" {
		return "", false
	}
	n := len(cursor(req))
	return Result(req.ID, map[string]any{"tools": []any{}, "nextCursor": strings.Repeat("x", n+1)}), true
}

func pages(_ *Server, req *Request) (string, bool) {
	if req.Method != "tools/list" {
		return "", false
	}
	c := cursor(req)
	next := map[string]string{"": "p2", "p2": "p3", "p3": ""}[c]
	tool := map[string]any{"name": "tool_" + c, "inputSchema": map[string]any{"type": "object"}}
	return Result(req.ID, map[string]any{"tools": []any{tool}, "nextCursor": next}), true
}

func noSkills(_ *Server, req *Request) (string, bool) {
	if req.Method != "skills/list" {
		return "", false
	}
	return Error(req.ID, -32601, "skills/list not supported"), true
}
