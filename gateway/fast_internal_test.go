package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// parseCall takes only a tools/call exactly as the fast path serves it;
// anything else is go-sdk's to judge.
func TestParseCall(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	call := func(envelope, params string) string {
		return `{` + envelope + `"method":"tools/call","params":{` + params + meta + `}}`
	}
	ok := call(`"jsonrpc":"2.0","id":"a",`, `"name":"t","arguments":{"x":1},`)
	if c, served := parseCall([]byte(ok)); !served || c.name != "t" || string(c.id) != `"a"` || string(c.args) != `{"x":1}` {
		t.Fatalf("%s: got %+v, %v", ok, c, served)
	}
	// Space wherever JSON allows it and escapes in values are read as a
	// decoder reads them; a member name written with an escape is left
	// to go-sdk (below).
	spaced := " {\n \"jsonrpc\" : \"2.0\" ,\"id\":\t-7 , \"method\":\"tools\\/call\", \"params\" : { \"name\" : \"caf\\u00e9\" ," +
		" \"arguments\" : {\"s\":\"}\\\"]\",\"a\":[{},[]]} , " + meta + " } } "
	if c, served := parseCall([]byte(spaced)); !served || c.name != "café" || string(c.id) != `-7` || string(c.args) != `{"s":"}\"]","a":[{},[]]}` {
		t.Fatalf("%s: got %+v, %v", spaced, c, served)
	}
	for _, body := range []string{
		call(`"jsonrpc":"2.0","id":null,`, `"name":"t",`),
		call(`"jsonrpc":"2.0","id":1,`, `"n\u0061me":"t",`),
		call(`"jsonrpc":"2.0","id":1,`, `"name":"t","arguments":{"x":1}`) + `x`,
		strings.Replace(call(`"jsonrpc":"2.0","id":1,`, `"name":"t",`), `"_meta":{`, `"_meta":{"progressToken":1,`, 1),
		strings.Replace(call(`"jsonrpc":"2.0","id":1,`, `"name":"t",`), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/clientInfo":{"name":1},`, 1),
		call(`"jsonrpc":"2.0",`, `"name":"t",`),
		call(`"jsonrpc":"1.0","id":1,`, `"name":"t",`),
		call(`"jsonrpc":"2.0","id":1,"Method":"x",`, `"name":"t",`),
		call(`"jsonrpc":"2.0","id":1,`, `"Name":"t",`),
		call(`"jsonrpc":"2.0","id":1,`, `"name":"t","arguments":[1],`),
		call(`"jsonrpc":"2.0","id":1,`, `"name":"t","task":{},`),
		strings.Replace(call(`"jsonrpc":"2.0","id":1,`, `"name":"t",`), `"2026-07-28"`, `"2025-11-25"`, 1),
		strings.Replace(call(`"jsonrpc":"2.0","id":1,`, `"name":"t",`), `,"io.modelcontextprotocol/clientCapabilities":{}`, ``, 1),
		`[` + ok + `]`,
	} {
		if c, served := parseCall([]byte(body)); served {
			t.Errorf("%s: taken as %+v", body, c)
		}
	}
}

// callBody is a tools/call the fast path takes, with envelope and params
// members put before the protocol's (each with a trailing comma), and
// meta before those of _meta.
func callBody(envelope, params, meta string) string {
	return `{"jsonrpc":"2.0",` + envelope + `"method":"tools/call","params":{` + params +
		`"_meta":{` + meta + `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
}

// FuzzParseCall gives parseCall any body: it never panics, and what it
// takes it reads as go-sdk does (encoding/json, names matched exactly):
// the same id, name, arguments and _meta, a protocol of 2026-07-28 and
// capabilities that decode. A body go-sdk would refuse, or answer with an
// id other than the one written, it leaves to go-sdk (sdkReads).
func FuzzParseCall(f *testing.F) {
	deep := strings.Repeat(`[`, 1001) + strings.Repeat(`]`, 1001)
	for _, s := range []string{
		callBody(`"id":1,`, `"name":"t","arguments":{"x":1},`, ``),
		callBody(`"id":"a",`, `"name":"caf\u00e9","arguments":{"s":"}\"]","a":[{},[]]},`, `"traceparent":"00-1-2-01",`),
		" {\n \"jsonrpc\" : \"2.0\" ,\"id\":\t-7 , \"method\":\"tools\\/call\", \"params\" : { \"name\" : \"t\" , \"arguments\" : null , " +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}} } } `,
		// Members named twice, or written with an escape.
		callBody(`"id":1,"id":"b",`, `"name":"t","name":"u",`, ``),
		callBody(`"id":1,`, `"name":"t","_meta":{"progressToken":1},`, ``),
		callBody(`"id":1,`, `"name":"t","arguments":{"a":1},"arguments":[],`, ``),
		callBody(`"id":1,`, `"name":"t",`, `"io.modelcontextprotocol/clientCapabilities":{"x":1},`),
		callBody(`"id":1,`, `"n\u0061me":"t",`, ``),
		callBody(`"id":1,`, `"name":"t",`, `"progress\u0054oken":1,`),
		callBody(`"i\u0064":1,`, `"name":"t",`, ``),
		// Ids go-sdk reads as other numbers, or refuses.
		callBody(`"id":1e400,`, `"name":"t",`, ``),
		callBody(`"id":1.5,`, `"name":"t",`, ``),
		callBody(`"id":1e2,`, `"name":"t",`, ``),
		callBody(`"id":-0,`, `"name":"t",`, ``),
		callBody(`"id":9007199254740993,`, `"name":"t",`, ``),
		callBody(`"id":123456789012345678901234567890,`, `"name":"t",`, ``),
		callBody(`"id":{},`, `"name":"t",`, ``),
		// _meta nested, deep, or holding what go-sdk cannot decode.
		callBody(`"id":1,`, `"name":"t","arguments":{"_meta":{"progressToken":1}},`, `"x":{"_meta":{"progressToken":1}},`),
		callBody(`"id":1,`, `"name":"t",`, `"x":1e400,`),
		callBody(`"id":1,`, `"name":"t","arguments":{"a":`+deep+`},`, ``),
		callBody(`"id":1,`, `"name":"t",`, `"x":`+deep+`,`),
		callBody(`"id":1,`, `"name":"t",`, `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"x":1e400}},`),
		// Invalid UTF-8, in a value and in a name.
		callBody("\"id\":\"\xff\",", "\"name\":\"t\xff\",", ``),
		callBody(`"id":"\u0041\ud800",`, `"name":"t",`, ``),
		callBody(`"id":1,`, `"name":"t",`, "\"\xff\":1,"),
		callBody(`"id":1,`, `"name":"t",`, ``) + `x`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}}`,
		`[]`, `{`, `{"jsonrpc":"2.0"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		call, ok := parseCall(body)
		if !ok {
			return
		}
		want, why := sdkReads(body)
		if why != "" {
			t.Fatalf("%q: taken, but %s", body, why)
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(call.meta, &meta); err != nil {
			t.Fatalf("%q: _meta %q: %v", body, call.meta, err)
		}
		if call.name != want.name || !bytes.Equal(call.args, want.args) || !reflect.DeepEqual(meta, want.meta) ||
			!reflect.DeepEqual(call.caps, want.caps) {
			t.Fatalf("%q: read\n%q %q %q %+v\ngo-sdk reads\n%q %q %q %+v", body,
				call.name, call.args, meta, call.caps, want.name, want.args, want.meta, want.caps)
		}
		// A string id is echoed as written, which a client reads as the
		// string go-sdk writes; a number, as go-sdk writes it.
		var got, sdk any
		_ = json.Unmarshal(call.id, &got)
		_ = json.Unmarshal([]byte(want.id), &sdk)
		if _, number := sdk.(float64); number && string(call.id) != want.id || !reflect.DeepEqual(got, sdk) {
			t.Fatalf("%q: answered with id %s, go-sdk with %s", body, call.id, want.id)
		}
	})
}

// A sdkCall is what go-sdk reads of a tools/call.
type sdkCall struct {
	id   string // as go-sdk writes it in its answer
	name string
	args json.RawMessage
	meta map[string]json.RawMessage
	caps *mcp.ClientCapabilities
}

// sdkReads reads body as go-sdk's stateless handler does (encoding/json
// standing for its decoder, which matches names exactly, as parseCall's
// callers are given only exact names), or says why the fast path must
// leave it to go-sdk.
func sdkReads(body []byte) (sdkCall, string) {
	if d := nesting(body); d > 1000 {
		return sdkCall{}, fmt.Sprintf("nested %d deep: go-sdk's decoder refuses more than 1000", d)
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return sdkCall{}, "go-sdk refuses it: " + err.Error()
	}
	if env.JSONRPC != "2.0" || env.Method != "tools/call" {
		return sdkCall{}, fmt.Sprintf("not a tools/call of JSON-RPC 2.0: %q %q", env.JSONRPC, env.Method)
	}
	var call sdkCall
	// go-sdk reads a number id as a float64 and answers with it as an int64.
	switch id := env.ID.(type) {
	case string:
		data, _ := json.Marshal(id)
		call.id = string(data)
	case float64:
		call.id = strconv.FormatInt(int64(id), 10)
		if math.Abs(id) > 1<<53 {
			call.id = "an id past 2^53"
		}
	default:
		return sdkCall{}, fmt.Sprintf("an id of %T", env.ID)
	}
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(env.Params, &params); err != nil {
		return sdkCall{}, "go-sdk refuses its params: " + err.Error()
	}
	var raw struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(env.Params, &raw)
	call.name, call.args, call.meta = params.Name, params.Arguments, raw.Meta
	if _, ok := raw.Meta["progressToken"]; ok {
		return sdkCall{}, "it asks for progress"
	}
	if _, ok := raw.Meta[mcp.MetaKeyLogLevel]; ok {
		return sdkCall{}, "it sets a log level"
	}
	if v, _ := params.Meta[mcp.MetaKeyProtocolVersion].(string); v != statelessVersion {
		return sdkCall{}, fmt.Sprintf("protocol %q", v)
	}
	if _, ok := params.Meta[mcp.MetaKeyClientCapabilities].(map[string]any); !ok {
		return sdkCall{}, "no client capabilities"
	}
	call.caps = new(mcp.ClientCapabilities)
	if err := json.Unmarshal(raw.Meta[mcp.MetaKeyClientCapabilities], call.caps); err != nil {
		return sdkCall{}, "capabilities go-sdk refuses: " + err.Error()
	}
	return call, ""
}

// nesting is how deep the JSON data nests its objects and arrays.
func nesting(data []byte) int {
	depth, most, str := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case str && c == '\\':
			i++
		case c == '"':
			str = !str
		case str:
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}

// FuzzCompleteRaw gives completeRaw any result a server may write and
// mcptool passes on raw (an object whose member names are written without
// escapes, each once, its resultType a string, null or absent): what the
// client gets is the result, every member as the server wrote it, with one
// resultType, the server's string or "complete", and isError as written.
func FuzzCompleteRaw(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"<b>hi</b>"}]}`,
		` { } `,
		`{"content":[],"isError":true,"resultType":"complete"}`,
		`{"resultType":"task","task":{"taskId":"t"}}`,
		`{"content":[],"resultType":null}`,
		"{\"content\":[],\"_meta\":{\"x\":\"\xff\"},\"structuredContent\":{\"resultType\":null}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var written map[string]json.RawMessage
		names := map[string]bool{}
		once := rawjson.Members(raw, func(k, _ []byte) bool {
			if names[string(k)] {
				return false
			}
			names[string(k)] = true
			return true
		})
		if !json.Valid(raw) || !once || json.Unmarshal(raw, &written) != nil {
			return
		}
		kind, isString := rawjson.String(written["resultType"])
		if !isString && written["resultType"] != nil && string(written["resultType"]) != "null" {
			return
		}
		out, isError := completeRaw(raw)
		var got map[string]json.RawMessage
		if !json.Valid(out) || json.Unmarshal(out, &got) != nil {
			t.Fatalf("%q: completed as %q, not an object", raw, out)
		}
		n := 0
		rawjson.Members(out, func(k, _ []byte) bool {
			if string(k) == "resultType" {
				n++
			}
			return true
		})
		if !isString {
			kind = "complete"
		}
		if v, _ := rawjson.String(got["resultType"]); n != 1 || v != kind {
			t.Fatalf("%q: completed as %q: resultType %d times, %q; want once, %q", raw, out, n, got["resultType"], kind)
		}
		for k, v := range written {
			if k != "resultType" && !bytes.Equal(got[k], v) {
				t.Fatalf("%q: completed as %q: %s is %q, want %q", raw, out, k, got[k], v)
			}
		}
		if isError != (string(written["isError"]) == "true") {
			t.Fatalf("%q: isError %v", raw, isError)
		}
	})
}

// readBody's buffer follows what arrives, not the length a client declares:
// a request claiming 4 MiB that sends a few bytes costs a small buffer, and
// counts no more than that against the bytes held.
func TestReadBodyBufferFollowsTheBody(t *testing.T) {
	g := &Gateway{lim: Limits{}.Resolved()}
	g.bytes = requestBudget(g.lim)
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0"}`))
	r.ContentLength = mcp.DefaultMaxRequestBodyBytes
	body, held, f := g.readBody(httptest.NewRecorder(), r, "")
	if f != nil || string(body) != `{"jsonrpc":"2.0"}` || cap(body) > 64<<10+1 || held != int64(cap(body)) {
		t.Fatalf("read %q (%v) into a buffer of %d bytes, %d held", body, f, cap(body), held)
	}
}
