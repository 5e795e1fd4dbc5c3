package mcptool

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A provider's state is the core's, converted as a number: the two lists
// must stay in one order.
func TestStatesAreTheCores(t *testing.T) {
	pairs := map[State]mcpclient.State{StateIdle: mcpclient.StateIdle, StateConnecting: mcpclient.StateConnecting,
		StateReady: mcpclient.StateReady, StateReconnecting: mcpclient.StateReconnecting, StateFailed: mcpclient.StateFailed,
		StateClosed: mcpclient.StateClosed}
	for pub, core := range pairs {
		if int(pub) != int(core) {
			t.Errorf("%v is %d here and %d in the core", pub, int(pub), int(core))
		}
	}
}
