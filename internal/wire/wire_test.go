package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// messages are JSON-RPC messages of every shape Decode reads itself or
// hands to go-sdk: for the agreement test and the fuzz corpus.
var messages = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`,
	`{"jsonrpc":"2.0","id":"a-1","result":null}`,
	`{"jsonrpc":"2.0","id":2}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad","data":{"why":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad","data":null}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":1.5,"message":"bad"}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"bad","Extra":1}}`,
	`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"caf\u00e9 \ud800"}}`,
	`{"jsonrpc":"2.0","id":3,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":3,"error":"text"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
	`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"m"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"","params":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":null}`,
	`{"jsonrpc":"2.0","id":7,"method":5}`,
	`{"jsonrpc":"2.0","id":7,"method":"a\u0062c"}`,
	`{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
	`{"jsonrpc":"2.0","id":-0,"result":{}}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`,
	`{"jsonrpc":"2.0","id":true,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"result":{}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":"caf\u00e9","result":{}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":{}}",
	`{"jsonrpc":"1.0","id":1,"result":{}}`,
	`{"jsonrpc":"2\u002e0","id":1,"result":{}}`,
	`{"id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{},"result":[1]}`,
	`{"jsonrpc":"2.0","ID":1,"id":2,"result":{}}`,
	`{"jsonrpc":"2.0","\u0069d":2,"result":{}}`,
	`{ "jsonrpc" : "2.0" , "id" : 1 , "result" : { "a" : 1 } }`,
	`{"jsonrpc":"2.0","id":1,"params":{"x":1},"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":{}`,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`null`,
	``,
}

// TestDecodeAgreesWithGoSDK holds Decode to go-sdk's jsonrpc.DecodeMessage:
// the same message, or a failure where go-sdk fails.
func TestDecodeAgreesWithGoSDK(t *testing.T) {
	for _, m := range messages {
		agree(t, []byte(m))
	}
}

func FuzzDecode(f *testing.F) {
	for _, m := range messages {
		if len(m) < 1000 { // the long ones slow the engine, and teach it nothing
			f.Add([]byte(m))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { agree(t, data) })
}

func agree(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(data)
	got, err := Decode(append([]byte(nil), data...))
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%.200s: decode: %v; go-sdk: %v", data, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200s: decode gave %#v; go-sdk %#v", data, got, want)
	}
}

// A request is encoded as go-sdk encodes it.
func TestEncodeAgreesWithGoSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Request{ID: id(float64(1)), Method: "tools/call", Params: json.RawMessage(`{"name":"echo","arguments":{"text":"<&>"}}`)},
		&jsonrpc.Request{ID: id("s-1"), Method: "ping"},
		&jsonrpc.Request{ID: id(`q"uote`), Method: "ping"},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1}`)},
		&jsonrpc.Request{ID: id(float64(0)), Method: "caf\u00e9"},
		&jsonrpc.Request{ID: id(float64(2)), Method: ""},
		&jsonrpc.Response{ID: id(float64(3)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(float64(3)), Error: &jsonrpc.Error{Code: -1, Message: "no"}},
	} {
		want, wantErr := jsonrpc.EncodeMessage(msg)
		got, err := Encode(msg)
		if string(got) != string(want) || (err != nil) != (wantErr != nil) {
			t.Errorf("%#v: encoded %s, %v; go-sdk %s, %v", msg, got, err, want, wantErr)
		}
		// Append keeps what dst holds, whichever way msg is written.
		if err == nil {
			got, _ = Append([]byte("before\n"), msg)
			if string(got) != "before\n"+string(want) {
				t.Errorf("%#v: appended %s; want before\\n%s", msg, got, want)
			}
		}
	}
}

// A request is encoded in one allocation, the size of what it writes,
// whatever its id.
func TestEncodeARequestInOneAllocation(t *testing.T) {
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 16<<10) + `"}}`)
	for _, v := range []any{float64(1<<53 - 1), "mcpbridge-call-123456789", strings.Repeat("i", 200)} {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: params}
		if n := testing.AllocsPerRun(10, func() { Encode(req) }); n != 1 {
			t.Errorf("id %v: %v allocations; want 1", v, n)
		}
	}
}
