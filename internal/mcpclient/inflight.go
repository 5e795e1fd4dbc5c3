package mcpclient

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The calls in flight, to which a server's requests to the host
// (elicitation, sampling) belong. On protocol 2026-07-28 a request comes
// inside the call's own result (input_required), with the call's context;
// before, the server sends it on its own, and nothing on the wire says
// which call it serves (a stdio server shares one pipe, go-sdk's HTTP
// client one stream of incoming requests). Then a request that comes while
// one call is in flight is that call's; while several are, it counts
// against every one of them and is answered by the elicitor of the
// earliest that carries one.

// A callFrame is one tools/call in flight.
type callFrame struct {
	tool    string
	elicit  tool.Elicitor   // from the call's context, or nil
	relay   Relay           // from the call's context ([WithCaller]), or nil
	ctx     context.Context // the call's, which a relay is asked with
	urls    []string        // the URL elicitations relayed, by id (relay.go)
	mu      sync.Mutex
	sampled int // sampling requests answered for the call

	// The client span of the call's tools/call, which the middleware
	// leaves to callOnce to end (telemetry.go) when holdsSpan: touched by
	// the call's goroutine alone.
	holdsSpan bool
	span      *traced

	// What the call's sends use, held here, which is made anyway, so that
	// a send costs no allocation of its own: the arguments (their address
	// goes in the params, an interface holding a pointer with no
	// allocation), and the catch of its raw result (call.go).
	args  json.RawMessage
	catch sdkfix.Catch
	model bool // the result is for a model: its _meta is not decoded
}

var frameKey = ctxkey.New[*callFrame]("mcptool call frame")

// inflight holds the provider's calls in flight, oldest first.
type inflight struct {
	mu     sync.Mutex
	frames []*callFrame
	ended  []urlRelay // the URL elicitations of calls that returned (relay.go)
}

// begin registers a call of name and returns its frame, whose context
// carries it; end ends it.
func (in *inflight) begin(ctx context.Context, name string) *callFrame {
	f := &callFrame{tool: name, elicit: ctxkey.Value[tool.Elicitor](ctx), relay: callerOf(ctx).Relay}
	f.ctx = frameKey.With(ctx, f)
	in.mu.Lock()
	in.frames = append(in.frames, f)
	in.mu.Unlock()
	return f
}

// end ends the call of frame f.
func (in *inflight) end(f *callFrame) {
	in.mu.Lock()
	if i := slices.Index(in.frames, f); i >= 0 {
		in.frames = slices.Delete(in.frames, i, i+1)
	}
	in.keep(f)
	in.mu.Unlock()
}

// of returns the calls a request from the server with context ctx
// belongs to: the call whose context it is, or else every call in flight
// (none outside a call).
func (in *inflight) of(ctx context.Context) []*callFrame {
	if f := frameKey.Value(ctx); f != nil {
		return []*callFrame{f}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.frames)
}

// asker returns who a request made during frames is asked through: the
// elicitor of the earliest frame that carries one, or else def. tool is
// the call's tool when the request is surely one call's.
func asker(frames []*callFrame, def tool.Elicitor) (ask tool.Elicitor, toolName string) {
	if len(frames) == 1 {
		toolName = frames[0].tool
	}
	for _, f := range frames {
		if f.elicit != nil {
			return f.elicit, toolName
		}
	}
	return def, toolName
}
