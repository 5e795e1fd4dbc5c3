package idscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func mustID(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// scan runs a Scanner over msg fed in pieces of n bytes, so that state
// must carry across piece boundaries.
func scan(msg string, n int) (id jsonrpc.ID, hasID, isRequest, isJSONRPC bool) {
	var s Scanner
	for p := []byte(msg); len(p) > 0; {
		k := min(n, len(p))
		s.Feed(p[:k])
		p = p[k:]
	}
	id, hasID, isRequest = s.Result()
	return id, hasID, isRequest, s.IsJSONRPC()
}

func TestIDScanner(t *testing.T) {
	for _, tc := range []struct {
		msg       string
		id        any // nil: none
		isRequest bool
		jsonrpc   bool // a top-level "jsonrpc":"2.0"
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"x":1}}`, float64(3), false, true},
		{`{"result":{"content":[{"id":9,"text":"\"id\":8"}]},"jsonrpc":"2.0","id":3}`, float64(3), false, true},
		{` { "result" : [ 1, {"id": 2}, "a\\", {} ] , "id" : "abc" } `, "abc", false, false},
		{`{"id":"q\"uo\\te\u00e9","result":null}`, "q\"uo\\te\u00e9", false, false},
		{`{"result":"}{\"id\":1}","id":-12}`, float64(-12), false, false},
		{`{"id":1.5e1,"result":true}`, float64(15), false, false},
		{`{"\u0069d":4,"result":{}}`, float64(4), false, false},
		{`{"method":"sampling/createMessage","params":{"id":1},"id":"s1"}`, "s1", true, false},
		{`{"params":{"method":"x"},"id":2}`, float64(2), false, false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"id"}}`, nil, true, true},
		{`{"id":null,"error":{"code":-32700,"message":"parse error"}}`, nil, false, false},
		{`{"id":{"a":1},"result":1}`, nil, false, false},
		{`{"id":true,"result":1}`, nil, false, false},
		{`{"result":{"id":1}}`, nil, false, false},
		{`[{"id":1}]`, nil, false, false},
		{`{"result":"` + strings.Repeat("x", 5000), nil, false, false}, // cut short
		{`{"result":"` + strings.Repeat("x", 5000) + `","id":77}`, float64(77), false, false},
		{`{"id":"` + strings.Repeat("l", maxScanToken+1) + `"}`, nil, false, false},
		{`{"params":{"jsonrpc":"2.0"},"jsonrpc":"1.0","id":1}`, float64(1), false, false},
		{`{"jsonrpc":"2.0","jsonrpc":2,"id":1}`, float64(1), false, false},
		{`{"result":[[[[` + strings.Repeat("[", 20000) + `,"jsonrpc":"2.0","id":1}`, nil, false, false}, // cut short
	} {
		for _, n := range []int{1, 3, 4096} {
			id, ok, isReq, isRPC := scan(tc.msg, n)
			want := jsonrpc.ID{}
			if tc.id != nil {
				want = mustID(tc.id)
			}
			wantRPC := tc.jsonrpc
			if ok != (tc.id != nil) || id != want || isReq != tc.isRequest || isRPC != wantRPC {
				t.Errorf("scan(%.60q, pieces of %d) = %v, %v, request %v, JSON-RPC %v; want %v, %v, request %v, JSON-RPC %v",
					tc.msg, n, id.Raw(), ok, isReq, isRPC, want.Raw(), tc.id != nil, tc.isRequest, wantRPC)
			}
		}
	}
}

// FuzzIDScanner checks the scanner against encoding/json on valid objects:
// the first top-level "id" that is a number or string, and whether there is
// a top-level string "method".
func FuzzIDScanner(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"x":1}}`,
		`{"result":{"id":"n","a":[1,"\"",{"id":2}]},"id":"top"}`,
		`{"method":"m","id":null,"params":[]}`,
		`{"\u006dethod":"m","i\u0064":-0.5e3}`,
		`{"id":[1],"id":2}`,
		`{"jsonrpc":"2.0","jsonrpc":"1.0","id":1}`,
		`{"jsonrpc" : "2.0" ,"id":{"jsonrpc":"2.0"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if !json.Valid([]byte(msg)) {
			return
		}
		wantID, wantOK, wantReq, wantRPC, valid := oracle(msg)
		if !valid {
			return
		}
		id, ok, isReq, isRPC := scan(msg, 7)
		if ok != wantOK || id != wantID || isReq != wantReq || isRPC != wantRPC {
			t.Errorf("scan(%q) = %v, %v, %v, %v; encoding/json says %v, %v, %v, %v", msg, id.Raw(), ok, isReq, isRPC, wantID.Raw(), wantOK, wantReq, wantRPC)
		}
	})
}

func oracle(msg string) (id jsonrpc.ID, hasID, hasMethod, isJSONRPC, valid bool) {
	dec := json.NewDecoder(strings.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return id, false, false, false, err == nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return id, false, false, false, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return id, false, false, false, false
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return id, false, false, false, false // e.g. a number out of float64 range
		}
		switch tok {
		case "id":
			if hasID {
				break
			}
			// The scanner keeps at most maxScanToken bytes of an id.
			if s, ok := v.(string); ok && len(raw)-2 <= maxScanToken {
				id, hasID = mustID(s), true
			}
			if f, ok := v.(float64); ok && len(raw) <= maxScanToken {
				id, hasID = mustID(f), true
			}
		case "method":
			if _, ok := v.(string); ok {
				hasMethod = true
			}
		case "jsonrpc":
			// As written: the scanner does not decode escapes in it.
			isJSONRPC = string(raw) == `"2.0"`
		}
	}
	return id, hasID, hasMethod, isJSONRPC, true
}
