package gateway

import (
	"strings"
	"testing"
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
