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
func scan(msg string, n int) (jsonrpc.ID, bool, bool) {
	var s Scanner
	for p := []byte(msg); len(p) > 0; {
		k := min(n, len(p))
		s.Feed(p[:k])
		p = p[k:]
	}
	return s.Result()
}

func TestIDScanner(t *testing.T) {
	for _, tc := range []struct {
		msg       string
		id        any // nil: none
		isRequest bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"x":1}}`, float64(3), false},
		{`{"result":{"content":[{"id":9,"text":"\"id\":8"}]},"jsonrpc":"2.0","id":3}`, float64(3), false},
		{` { "result" : [ 1, {"id": 2}, "a\\", {} ] , "id" : "abc" } `, "abc", false},
		{`{"id":"q\"uo\\te\u00e9","result":null}`, "q\"uo\\te\u00e9", false},
		{`{"result":"}{\"id\":1}","id":-12}`, float64(-12), false},
		{`{"id":1.5e1,"result":true}`, float64(15), false},
		{`{"\u0069d":4,"result":{}}`, float64(4), false},
		{`{"method":"sampling/createMessage","params":{"id":1},"id":"s1"}`, "s1", true},
		{`{"params":{"method":"x"},"id":2}`, float64(2), false},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"id"}}`, nil, true},
		{`{"id":null,"error":{"code":-32700,"message":"parse error"}}`, nil, false},
		{`{"id":{"a":1},"result":1}`, nil, false},
		{`{"id":true,"result":1}`, nil, false},
		{`{"result":{"id":1}}`, nil, false},
		{`[{"id":1}]`, nil, false},
		{`{"result":"` + strings.Repeat("x", 5000), nil, false}, // cut short
		{`{"result":"` + strings.Repeat("x", 5000) + `","id":77}`, float64(77), false},
		{`{"id":"` + strings.Repeat("l", maxScanToken+1) + `"}`, nil, false},
	} {
		for _, n := range []int{1, 3, 4096} {
			id, ok, isReq := scan(tc.msg, n)
			want := jsonrpc.ID{}
			if tc.id != nil {
				want = mustID(tc.id)
			}
			if ok != (tc.id != nil) || id != want || isReq != tc.isRequest {
				t.Errorf("scan(%.60q, pieces of %d) = %v, %v, request %v; want %v, %v, request %v",
					tc.msg, n, id.Raw(), ok, isReq, want.Raw(), tc.id != nil, tc.isRequest)
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if !json.Valid([]byte(msg)) {
			return
		}
		wantID, wantOK, wantReq, valid := oracle(msg)
		if !valid {
			return
		}
		id, ok, isReq := scan(msg, 7)
		if ok != wantOK || id != wantID || isReq != wantReq {
			t.Errorf("scan(%q) = %v, %v, %v; encoding/json says %v, %v, %v", msg, id.Raw(), ok, isReq, wantID.Raw(), wantOK, wantReq)
		}
	})
}

func oracle(msg string) (id jsonrpc.ID, hasID, hasMethod, valid bool) {
	dec := json.NewDecoder(strings.NewReader(msg))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return id, false, false, err == nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return id, false, false, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return id, false, false, false
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return id, false, false, false // e.g. a number out of float64 range
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
		}
	}
	return id, hasID, hasMethod, true
}
