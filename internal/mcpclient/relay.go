package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
)

// A Relay answers the requests a server makes of the host during a call by
// passing them on, as they came, to the MCP client the call is made for:
// package gateway relays them so. *mcp.ServerSession is one.
type Relay interface {
	Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	CreateMessageWithTools(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error
}

// ErrInputRequired is what a [Relay] returns for a client that is asked
// only in its call's result (protocol 2026-07-28, stateless): a call whose
// server asked for input in its result (input_required) then returns that
// result, its InputRequests and RequestState as the server wrote them, for
// the client to answer and call again ([Caller]); a task's questions alike
// ([AskingTask]). A request the server sends on its own (a server or a
// task of protocol 2025-11-25) fails with it, and the server is told, in
// its words, what the client would need.
var ErrInputRequired = errors.New("the client can be asked only in its call's result (protocol 2026-07-28), and this request came on its own: a client with a session (protocol 2025-11-25) could be asked it")

// ResultOnly is the [Relay] of a client asked only in its request's
// result (protocol 2026-07-28, stateless): it answers every request with
// [ErrInputRequired], so that a question the server puts in its result
// reaches the client whole, and one the server sends on its own fails.
type ResultOnly struct{}

// Elicit returns [ErrInputRequired].
func (ResultOnly) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return nil, ErrInputRequired
}

// CreateMessageWithTools returns [ErrInputRequired].
func (ResultOnly) CreateMessageWithTools(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return nil, ErrInputRequired
}

// NotifyElicitationComplete does nothing: the client has no elicitation
// of the server's in flight.
func (ResultOnly) NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error {
	return nil
}

// WithRelay declares to the server elicitation (form and URL) and sampling
// (with tools), so that the calls made with [WithCaller] relay them to
// their [Caller]. A request made outside such a call is answered by the
// provider's own hooks ([WithElicitation], [WithSampling]), or refused.
// Roots are not relayed: a server keeps the roots it learns for its
// session, which the calls of every caller share; [WithRoots] gives the
// provider's own.
func WithRelay() Option { return func(c *config) { c.relay = true } }

// A Caller is whom a call is made for, when it is relayed from an MCP
// client ([WithCaller]).
type Caller struct {
	// Relay answers what the server asks of the host during the call. A
	// request the server sends on its own while calls of several relays are
	// in flight is refused: nothing on the wire says whose it is.
	Relay Relay
	// InputResponses and RequestState are sent with the call: the client's
	// answers to the input requests of the result before (2026-07-28).
	InputResponses mcp.InputResponseMap
	RequestState   string
	// FollowsTasks says the client follows a task the server makes of
	// the call itself (the 2026-07-28 extension): the call returns a
	// [HandedTask] instead of following it.
	FollowsTasks bool
	// Answering, if set, is the task a call made for the caller returned
	// asking its client ([AskingTask]): the call sends InputResponses to
	// that task (tasks/update) and follows it on, instead of calling the
	// tool again; RequestState is not sent. The caller vouches that the
	// task is its client's (package gateway seals it in the state it
	// hands the client).
	Answering *AskingTask
	// Capabilities, if set, are what the client declared. A server that
	// takes the client's capabilities with each request (2026-07-28) is
	// told, in place of what the provider relays (elicitation, sampling),
	// the client's, so that it asks the client nothing it cannot answer
	// (and may refuse the call, -32021). The provider's extensions and
	// roots stay its own.
	Capabilities *mcp.ClientCapabilities
}

// declare puts in params' _meta the capabilities the call for c declares
// to a server that reads them per request, if c says what its client
// declared: the provider's, but for elicitation and sampling, the
// client's. The call fills in the rest of _meta without overwriting them
// (rawcall.go; go-sdk likewise).
func (p *Provider) declare(params *mcp.CallToolParams, c Caller) {
	if c.Capabilities == nil || !p.cfg.relay {
		return
	}
	wire := maps.Clone(p.wireCapabilities())
	delete(wire, "elicitation")
	delete(wire, "sampling")
	if e := c.Capabilities.Elicitation; e != nil {
		wire["elicitation"] = e
	}
	if s := c.Capabilities.Sampling; s != nil {
		wire["sampling"] = s
	}
	meta := params.GetMeta()
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyClientCapabilities] = wire
	params.SetMeta(meta)
}

// wireCapabilities returns the provider's capabilities as go-sdk writes
// them in _meta (roots from RootsV2, its #607), encoded once: they follow
// from its options alone. The map is shared; callers copy it.
func (p *Provider) wireCapabilities() map[string]any {
	p.wire.once.Do(func() {
		caps := p.hostCapabilities()
		if remarshal(caps, &p.wire.caps) != nil {
			p.wire.caps = map[string]any{}
		}
		delete(p.wire.caps, "roots")
		if caps.RootsV2 != nil {
			p.wire.caps["roots"] = caps.RootsV2
		}
	})
	return p.wire.caps
}

var callerKey = ctxkey.New[Caller]("mcptool caller")

// WithCaller returns a copy of ctx carrying c, for the tool calls made with
// it; the provider must have been made [WithRelay].
func WithCaller(ctx context.Context, c Caller) context.Context { return callerKey.With(ctx, c) }

func callerOf(ctx context.Context) Caller { return callerKey.Value(ctx) }

// relayOf returns the earliest of frames that has a relay, which a request
// of the server made during frames goes to; nil if none has. Relays are
// told apart with ==.
func relayOf(frames []*callFrame) (*callFrame, error) {
	var first *callFrame
	for _, f := range frames {
		switch {
		case f.relay == nil || first != nil && f.relay == first.relay:
		case first != nil:
			return nil, errors.New("calls of several clients are in flight, and nothing says whose the request is")
		default:
			first = f
		}
	}
	return first, nil
}

// relayed answers one request of the server's made during the call of
// ctx through the call's relay, and reports whether there was one. The
// relay is asked with the call's context (its values are the call's),
// which also ends with ctx, the request's.
func relayed[R any](p *Provider, ctx context.Context, ask func(context.Context, Relay) (R, error)) (res R, ok bool, err error) {
	f, err := relayOf(p.inflight.of(ctx))
	if f == nil && err == nil {
		return res, false, nil
	}
	if err != nil {
		return res, true, err
	}
	call, cancel := context.WithCancel(f.ctx)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	if frameKey.Value(ctx) == nil {
		call = onItsOwnKey.With(call, true)
	}
	res, err = ask(call, f.relay)
	return res, true, err
}

var onItsOwnKey = ctxkey.New[bool]("mcptool asked on its own")

// AskedOnItsOwn reports whether the question a [Relay] is asked with ctx
// is a request the server sent on its own during the call (protocol
// 2025-11-25), rather than one in the call's result (a 2026-07-28
// input_required, which the relay may leave to its client with
// [ErrInputRequired]).
func AskedOnItsOwn(ctx context.Context) bool { return onItsOwnKey.Value(ctx) }

// relayElicit relays an elicitation to r, which is told when the server
// says a URL elicitation is complete, while the call is in flight.
func (p *Provider) relayElicit(ctx context.Context, r Relay, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if params != nil && params.Mode == "url" && params.ElicitationID != "" {
		frames := p.inflight.of(ctx)
		p.inflight.mu.Lock()
		for _, f := range frames {
			if f.relay == r {
				f.urls = append(f.urls, params.ElicitationID)
			}
		}
		p.inflight.mu.Unlock()
	}
	return r.Elicit(ctx, params)
}

// completed takes in the server's notifications/elicitation/complete: the
// call waiting for it learns it, and a relayed one's client is told, even
// once the call has returned (see keptURLs).
func (p *Provider) completed(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	p.completions.completed(ctx, req)
	if req == nil || req.Params == nil {
		return
	}
	if r := p.inflight.urlRelay(req.Params.ElicitationID); r != nil {
		// A client gone meanwhile has no use for it.
		_ = r.NotifyElicitationComplete(ctx, req.Params)
	}
}

// A server says a URL elicitation is complete in a notification that may
// reach the provider after the call's result: go-sdk hands a notification
// to its handler apart from the answer to a request, which can overtake
// it. So the relays of the URL elicitations of the calls that returned
// last are kept, a bounded few, until their completion comes.
const keptURLs = 32

// A urlRelay is the relay of a URL elicitation, by its id.
type urlRelay struct {
	id    string
	relay Relay
}

// keep keeps the relays of the URL elicitations of f, a call that
// returned. The caller holds in.mu.
func (in *inflight) keep(f *callFrame) {
	for _, id := range f.urls {
		in.ended = append(in.ended, urlRelay{id, f.relay})
	}
	if n := len(in.ended) - keptURLs; n > 0 {
		in.ended = slices.Delete(in.ended, 0, n)
	}
}

// urlRelay returns the relay of the URL elicitation id, made by a call in
// flight or kept for a call that returned (then forgotten), or nil.
func (in *inflight) urlRelay(id string) Relay {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, f := range in.frames {
		if slices.Contains(f.urls, id) {
			return f.relay
		}
	}
	for i, u := range in.ended {
		if u.id == id {
			in.ended = slices.Delete(in.ended, i, i+1)
			return u.relay
		}
	}
	return nil
}

// relayInput passes one input request of a task on to r.
func relayInput(ctx context.Context, r Relay, req mcp.InputRequest) (mcp.InputResponse, error) {
	switch req := req.(type) {
	case *mcp.ElicitParams:
		return r.Elicit(ctx, req)
	case *mcp.CreateMessageWithToolsParams:
		return r.CreateMessageWithTools(ctx, req)
	case *mcp.CreateMessageParams:
		var params mcp.CreateMessageWithToolsParams
		if err := remarshal(req, &params); err != nil {
			return nil, err
		}
		return r.CreateMessageWithTools(ctx, &params)
	}
	return nil, fmt.Errorf("an input request of type %T: %w", req, errors.ErrUnsupported)
}

// inputRequired returns the result of a call whose relay left the input
// its server asked for to the client, as the server wrote it.
func inputRequired(raw json.RawMessage) (*mcp.CallToolResult, bool) {
	res := new(mcp.CallToolResult)
	if json.Unmarshal(raw, res) != nil || res.InputRequests == nil {
		return nil, false
	}
	return res, true
}
