package sdkfix

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The connection writes the arguments in the place of their mark, and
// never sends a request that holds the mark but not where the arguments
// go: that request fails alone, as one the transport rejected.
func TestArgumentsInTheirPlace(t *testing.T) {
	var c Catch
	args := json.RawMessage(`{"text": "` + strings.Repeat("x", spliceMin) + `"}`)
	m, ok := c.Arguments(args)
	if !ok {
		t.Fatalf("arguments of %d bytes not kept", len(args))
	}
	mark, _ := json.Marshal(map[string]any{"name": "echo", "arguments": m, "_meta": map[string]any{"a": 1}})
	id, _ := jsonrpc.MakeID(float64(1))
	out, err := c.withArguments(&jsonrpc.Request{ID: id, Method: "tools/call", Params: mark})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Arguments json.RawMessage `json:"arguments"`
		Meta      map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(out.Params, &got); err != nil || string(got.Arguments) != string(args) || got.Meta["a"] != 1.0 {
		t.Errorf("params %.80s... (%v), want the arguments as written", out.Params, err)
	}

	elsewhere, _ := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]any{"x": m}})
	if _, err := c.withArguments(&jsonrpc.Request{ID: id, Method: "tools/call", Params: elsewhere}); !Undelivered(err) {
		t.Errorf("the mark out of its place: %v, want a request the transport rejected", err)
	}
	if _, ok := new(Catch).Arguments(json.RawMessage(`{"a":1}`)); ok {
		t.Errorf("small arguments kept, want them left to go-sdk")
	}
	if _, ok := new(Catch).Arguments(json.RawMessage(`{"a":` + strings.Repeat(" ", spliceMin))); ok {
		t.Errorf("arguments that are not JSON kept, want them left to go-sdk, which refuses them")
	}
}
