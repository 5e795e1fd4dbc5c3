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
	"ignore-discover":  {doc: "never answers server/discover", answer: ignore("server/discover")},
	"hang":             {doc: "never answers server/discover or initialize", answer: ignore("server/discover", "initialize")},
	"exit-at-init":     {doc: "exits with status 3 at initialize, saying why on stderr", answer: exitAtInit},
	"bad-version":      {doc: "answers initialize with protocol version 1999-01-01", answer: badVersion},
	"cursor-loop":      {doc: "lists with a cursor that repeats", answer: cursorLoop},
	"endless":          {doc: "lists with a new cursor on every page, for ever", answer: endless},
	"pages":            {doc: "lists three pages of one tool each", answer: pages},
	"names":            {doc: "lists delete.dir (no vendor takes the dot), push and github_push, each answering its text argument", answer: names},
	"no-skills":        {doc: "refuses skills/list", answer: noSkills},
	"bad-header":       {doc: "lists echo and bad_header, whose input schema puts an x-mcp-header (SEP-2243) on an object property", answer: badHeader},
	"long-description": {doc: "lists echo and think, whose description is 2781 characters of sentences, as server-sequential-thinking's", answer: longDescription},
	"twin-names":       {doc: "lists a/b, a.b and echo, a/b first: OpenAI's rewrite makes both a_b; a call of either answers its own name", answer: twinNames},
	"null-items":       {doc: "lists null among its tools, resources, resource templates and prompts, and reads null among a resource's contents, beside one good item of each", answer: nullItems},
	"vast-listing":     {doc: "lists 100 pages of 10000 tools, and as many resources: each page a legal message, a million items in all", answer: vastListing},
	"stderr":           {doc: "writes a line to stderr as it starts", stderr: "hello from the server's stderr"},
	"needs-key":        {doc: "writes that API_KEY is not set to stderr as it starts, then behaves well", stderr: "warning: API_KEY is not set; searches will fail"},
	"leaky":            {doc: "writes the value of API_KEY to stderr at initialize, then behaves well (its flaky tool ends it, the line its last words)", answer: leaky},

	// Server text that reaches the model's prompt or a person's terminal.
	"lookalike-instructions": {doc: "sends instructions that try to close their block with look-alikes", answer: lookalikeInstructions},
	"skills-hostile":         {doc: "lists skills with line breaks, headings, escapes and spaces in URIs, paths and descriptions", answer: skillsHostile},
	"app":                    {doc: "an MCP App whose CSP smuggles in a directive and a keyword, and whose admin tool is for the app alone", answer: app},
	"app-message":            {doc: "an MCP App (board) that says AppMessage into the conversation as it is shown, and bank_transfer, a tool the model may call", answer: appMessage},
	"escapes":                {doc: "puts terminal escapes in its info, instructions, tools, results, resources, skills and stderr", answer: escapes, stderr: "stderr" + Escapes},

	// What a tool result can do to the host (results.go).
	"image-bomb":        {doc: "answers a text part and a PNG of side x side pixels (default 20000), 4 bytes a pixel decoded", answer: imageBomb},
	"gif-frames":        {doc: "answers a GIF of many 200x200 frames (default 10000)", answer: gifFrames},
	"decoder-bombs":     {doc: "answers count images (default 4) of side x side pixels (default 4096) of a kind that costs its decoder more than its pixels: a progressive CMYK JPEG (kind jpeg), a 16-bit PNG (png16), or an 8-bit PNG (png)", answer: decoderBombs},
	"corrupt-image":     {doc: "answers a good text part beside an image whose base64 is corrupt", answer: corruptImage},
	"bad-parts":         {doc: "answers good text parts among parts the protocol does not allow", answer: badParts},
	"null-result":       {doc: "answers tools/call with a null result", answer: result("null")},
	"empty-result":      {doc: "answers tools/call with an empty object", answer: result("{}")},
	"content-string":    {doc: "answers tools/call with content that is a string, not an array", answer: result(`{"content":"hello"}`)},
	"is-error-string":   {doc: "answers tools/call with isError a string", answer: result(`{"content":[],"isError":"yes"}`)},
	"structured-string": {doc: "answers tools/call with structured content that is a string", answer: result(`{"content":[{"type":"text","text":"t"}],"structuredContent":"s"}`)},
	"deep-result":       {doc: "answers tools/call with structured content nested depth deep (default 100000)", answer: deepResult},
	"bad-utf8":          {doc: "answers a text part holding bytes that are not UTF-8", answer: badUTF8},
	"many-parts":        {doc: "answers tools/call with many empty text parts (default 1000000)", answer: manyParts},
	"corrupt-blob":      {doc: "answers resources/read with a text and a blob whose base64 is corrupt", answer: corruptBlob},

	// The stdio wire (stdio.go).
	"deaf":        {doc: "stops reading stdin once it has answered tools/list (see StuckFileEnv)", serve: deaf},
	"deaf-asking": {doc: "deaf, and once its stdin is full sends DeafAsks requests that cannot be decoded", serve: deafAsking},
	"not-json":    {doc: "writes a banner with terminal escapes to stdout instead of JSON-RPC, answers nothing", serve: notJSON},
	"flood":       {doc: "writes lines that are not JSON-RPC to stdout without end, answers nothing", serve: flood},
	"banner":      {doc: "writes a few lines that are not JSON-RPC as it starts, then behaves well", serve: banner},
	"progress":    {doc: "answers a tools/call that asks for progress after three progress notifications, each followed by a ping it waits on", serve: progress},
	"log-flood":   {doc: "declares logging; asked for its log at debug level, floods it (FloodCount messages of FloodSize bytes), then answers once its client answered a ping", serve: logFlood},

	// HTTP and SSE trust (http.go; over HTTP only, see Server.Handler).
	"redirect":      {doc: "answers every HTTP request with a 307 to the same path at the origin of SetElsewhere", http: redirect},
	"events":        {doc: "answers each POSTed request with an event stream, the answer one event", http: func(s *Server) http.Handler { return posts(s, true) }},
	"sse":           {doc: "speaks the legacy HTTP+SSE transport: a GET stream names the POST endpoint and carries the answers", http: legacySSE(false)},
	"sse-elsewhere": {doc: "speaks legacy SSE, but its stream names an endpoint at the origin of SetElsewhere", http: legacySSE(true)},
	"big-listed":    {doc: "lists the big tool, whose answer is a text of its size argument in bytes", answer: bigListed},
	"echo-secrets":  {doc: "answers a tools/call with HTTP 500 whose plain text echoes the request's Authorization header, path and query, as a web framework's error page may (of flaky, a JSON-RPC error echoing them)", http: echoSecrets},

	// Sessions (session.go; over HTTP only).
	"forgets-session": {doc: "serves sessions, and forgets each once it has answered a tools/call, answering its next request 404 with the Python SDK's JSON-RPC error (SessionNotFound); lists echo and peek, read-only", http: forgetsSession, answer: peek},

	// Schemas (schema.go).
	"schema-cycles": {doc: "lists echo, a tool for each input schema no validation could finish on (self_ref, defs_cycle, all_of, any_of, dynamic_ref, doubling), and out_cycle, whose output schema is one", answer: schemaCycles},
	"tree-schema":   {doc: "lists tree, whose input schema recurses through array items (Gemini cannot take it), and flat", answer: treeSchema},
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

var exitAtInit = on("initialize", func(req *Request) string {
	fmt.Fprintln(os.Stderr, "fatal: no configuration")
	os.Exit(3)
	return ""
})

var badVersion = on("initialize", func(req *Request) string {
	return Result(req.ID, InitializeResult("1999-01-01"))
})

func cursor(req *Request) string {
	var p struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(req.Params, &p)
	return p.Cursor
}

var cursorLoop = on("tools/list", func(req *Request) string {
	return Result(req.ID, map[string]any{"tools": []any{Echo}, "nextCursor": "again"})
})

var endless = on("tools/list", func(req *Request) string {
	n := len(cursor(req))
	return Result(req.ID, map[string]any{"tools": []any{}, "nextCursor": strings.Repeat("x", n+1)})
})

var pages = on("tools/list", func(req *Request) string {
	c := cursor(req)
	next := map[string]string{"": "p2", "p2": "p3", "p3": ""}[c]
	tool := map[string]any{"name": "tool_" + c, "inputSchema": map[string]any{"type": "object"}}
	return Result(req.ID, map[string]any{"tools": []any{tool}, "nextCursor": next})
})

var names = on("tools/list", func(req *Request) string {
	var tools []any
	for _, name := range []string{"delete.dir", "push", "github_push"} {
		tools = append(tools, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
	}
	return Result(req.ID, map[string]any{"tools": tools})
})

// leaky says the key its environment gave it on stderr, as a server that
// logs its configuration does.
func leaky(_ *Server, req *Request) (string, bool) {
	if req.Method == "initialize" {
		fmt.Fprintln(os.Stderr, "starting with API_KEY="+os.Getenv("API_KEY"))
	}
	return "", false
}

var noSkills = on("skills/list", func(req *Request) string {
	return Error(req.ID, -32601, "skills/list not supported")
})

// nullItems declares resources and prompts, and lists (and reads) a null
// before the one good item of each kind: a client that reads an item
// without checking it for null dereferences nil.
func nullItems(_ *Server, req *Request) (string, bool) {
	switch req.Method {
	case "initialize":
		res := InitializeResult("2025-11-25")
		caps := res["capabilities"].(map[string]any)
		caps["resources"] = map[string]any{}
		caps["prompts"] = map[string]any{}
		return Result(req.ID, res), true
	case "tools/list":
		return Result(req.ID, map[string]any{"tools": []any{nil, Echo}}), true
	case "resources/list":
		return Result(req.ID, map[string]any{"resources": []any{nil, map[string]any{"uri": "text://good", "name": "good"}}}), true
	case "resources/templates/list":
		return Result(req.ID, map[string]any{"resourceTemplates": []any{nil, map[string]any{"uriTemplate": "text://good/{id}", "name": "goods"}}}), true
	case "prompts/list":
		return Result(req.ID, map[string]any{"prompts": []any{nil, map[string]any{"name": "good"}}}), true
	case "resources/read":
		return Result(req.ID, map[string]any{"contents": []any{nil, map[string]any{"uri": "text://good", "text": "good"}}}), true
	}
	return "", false
}

// badHeader lists, beside echo, a tool whose input schema has an
// x-mcp-header annotation the specification does not allow (on a
// property that is not a string, integer or boolean): go-sdk's server
// refuses such a tool by panicking in AddTool.
var badHeader = on("tools/list", func(req *Request) string {
	bad := map[string]any{"name": "bad_header", "inputSchema": map[string]any{"type": "object",
		"properties": map[string]any{"region": map[string]any{"type": "object", "x-mcp-header": "Region"}}}}
	return Result(req.ID, map[string]any{"tools": []any{Echo, bad}})
})

// twinNames lists two tools whose names one vendor rewrite makes alike,
// the later in byte order first, so that a host that names them by the
// listing's order is told apart from one that does not.
func twinNames(_ *Server, req *Request) (string, bool) {
	switch req.Method {
	case "tools/list":
		twin := func(name string) map[string]any {
			return map[string]any{"name": name, "description": "Answers its name.", "inputSchema": map[string]any{"type": "object"}}
		}
		return Result(req.ID, map[string]any{"tools": []any{twin("a/b"), twin("a.b"), Echo}}), true
	case "tools/call":
		if name, _ := CallParams(req); name == "a/b" || name == "a.b" {
			return Text(req.ID, name), true
		}
	}
	return "", false
}

// LongDescription is the description of the long-description mode's
// think: 2781 characters of sentences, the length of
// server-sequential-thinking's, so that a cap of 2048 falls inside a word.
var LongDescription = func() string {
	var b strings.Builder
	for i := 1; b.Len() < 2781; i++ {
		fmt.Fprintf(&b, "Thought %d revises what the earlier thoughts concluded, questions them or branches off. ", i)
	}
	return b.String()[:2781]
}()

var longDescription = on("tools/list", func(req *Request) string {
	think := map[string]any{"name": "think", "description": LongDescription, "inputSchema": map[string]any{"type": "object"}}
	return Result(req.ID, map[string]any{"tools": []any{think, Echo}})
})
