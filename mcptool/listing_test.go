package mcptool

import (
	"io"
	"strings"
	"testing"
)

// The tap finds a listing in an event stream however the stream is cut into
// reads, and passes by what came before the listing was asked for.
func TestTappedEventStream(t *testing.T) {
	const listing = `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}}]}}`
	before := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n"
	stream := "event: message\r\ndata: " + listing + "\r\n\r\n"
	for _, size := range []int{1, 2, 7, 64, 4096} {
		k := newSchemaKeeper()
		// One read never spans both parts, as the answer comes after the request.
		parts := io.MultiReader(strings.NewReader(before), strings.NewReader(stream))
		body := &tapped{ReadCloser: io.NopCloser(parts), k: k, events: true}
		// The request is sent after the first event was read.
		buf := make([]byte, size)
		read := 0
		for {
			if read >= len(before) && len(k.pending) == 0 && k.schemas["t"].input == nil {
				k.sent(float64(7), "tools/list")
			}
			n, err := body.Read(buf)
			read += n
			if err != nil {
				break
			}
		}
		if got := string(k.schemas["t"].input); got != `{"type":"object","properties":{"b":{},"a":{}}}` {
			t.Errorf("reads of %d bytes: schema %q", size, got)
		}
		if k.waiting() {
			t.Errorf("reads of %d bytes: the listing is still awaited", size)
		}
	}
}

// A listing that is never answered stops being awaited once discovery is
// over, so the tap does not read along with every later answer.
func TestSettleForgetsUnansweredListings(t *testing.T) {
	k := newSchemaKeeper()
	k.sent(float64(1), "tools/list")
	k.settle()
	if k.waiting() {
		t.Fatal("still waiting after settle")
	}
	var none *schemaKeeper
	none.settle() // a provider without a keeper
}
