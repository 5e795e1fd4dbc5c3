package sdkfix

import (
	"encoding/json"
	"testing"
)

// FuzzRequestedSchemas checks that reading the forms out of any message a
// server sends returns, and that each form found is a JSON value, found
// where the message has one.
func FuzzRequestedSchemas(f *testing.F) {
	f.Add([]byte(`{"message":"m","requestedSchema":{"type":"object","properties":{"z":{},"a":{}}}}`))
	f.Add([]byte(`{"inputRequests":{"x":{"params":{"requestedSchema":{"type":"object"}}}},"requestedSchema":[1,{"requestedSchema":2}]}`))
	f.Add([]byte(`[[[{"a":[{"requestedSchema":null}]}]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		found := requestedSchemas(data)
		for _, raw := range found {
			if !json.Valid(raw) {
				t.Fatalf("found %q, not JSON", raw)
			}
		}
		var top map[string]json.RawMessage // keys as written: json's field match ignores case
		if json.Unmarshal(data, &top) == nil && top["requestedSchema"] != nil && len(found) == 0 {
			t.Fatalf("the message's own requestedSchema was not found in %s", data)
		}
	})
}
