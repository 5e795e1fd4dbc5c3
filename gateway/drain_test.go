package gateway_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/gateway"
)

// readyAt is a log handler that notes, for the record "gateway: draining",
// whether the gateway still said it was ready.
type readyAt struct {
	g      **gateway.Gateway
	logged chan bool
}

func (h readyAt) Enabled(context.Context, slog.Level) bool { return true }
func (h readyAt) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h readyAt) WithGroup(string) slog.Handler            { return h }
func (h readyAt) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "gateway: draining" {
		h.logged <- (*h.g).Ready()
	}
	return nil
}

// Shutdown says it drains once new requests are refused, so that what
// reads the log (an operator, a test) may rely on it.
func TestShutdownSaysItDrainsOnceRefusing(t *testing.T) {
	var g *gateway.Gateway
	h := readyAt{&g, make(chan bool, 1)}
	g = start(t, []config.Server{newUpstream(t, "a").config(true)}, &gateway.Options{Logger: slog.New(h)})
	if err := g.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case ready := <-h.logged:
		if ready {
			t.Error("the gateway said it drains while still ready")
		}
	default:
		t.Error("Shutdown did not say it drains")
	}
}
