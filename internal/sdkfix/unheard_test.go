package sdkfix

import (
	"encoding/json"
	"testing"
)

// Of the messages of an event stream, Unheard is shown the notifications
// of its methods alone: not a request or an answer that names one.
func TestUnheardMessages(t *testing.T) {
	var heard []string
	u := Unheard{"notifications/tasks/status": func(params json.RawMessage) { heard = append(heard, string(params)) }}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"a"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"text":"notifications/tasks/status"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"notifications/tasks/status","params":{"taskId":"b"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"notifications/tasks/status"}}`,
		`not JSON "notifications/tasks/status"`,
	} {
		u.message([]byte(msg))
	}
	if len(heard) != 1 || heard[0] != `{"taskId":"a"}` {
		t.Fatalf("heard %q", heard)
	}
}
