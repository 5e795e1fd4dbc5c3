package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// callTool serves a tools/call of the catalog through go-sdk's server:
// the call ([Gateway.call]) for the client of req's session, whose
// progress token is honoured (each report the server makes on the call
// reaches the client). A result the server wrote is the client's as it
// came: go-sdk is handed its head, and the answer is written raw
// (passRaw). When the client cancels, or its stream ends, the call is
// cancelled on the server.
func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	raw, res, err := g.call(ctx, req.Session, relayTo(req), req.Params.GetProgressToken(), req.Params.Name, req.Params.Arguments)
	switch {
	case err != nil:
		return answer(req.Params.Name, err)
	case raw != nil:
		return passed(ctx, raw), nil
	}
	return res, nil
}

// call runs a call of the catalog served now, for a client over go-sdk's
// server (its session ss, nil for none), the fast path and call_tool
// alike: the gateway's policy and the client's, the toolset's argument
// check, and the server's call, made for c, whose result is the client's
// as the server wrote it (raw), or decoded (res) where the server's call
// answers decoded; or the error as it is. What the server asks of the
// host during the call is the client's to answer (hostio.go), a task's
// questions too (taskstate.go). A progress token, if the client gave one
// on a session, gets the server's reports on the call.
func (g *Gateway) call(ctx context.Context, ss *mcp.ServerSession, c mcpclient.Caller, token any, name string, args json.RawMessage) (json.RawMessage, *mcp.CallToolResult, error) {
	snap, err := g.gate(ctx, name, args)
	if err != nil {
		return nil, nil, err
	}
	server := g.serverOf(name)
	ctx, leave, err := g.enter(ctx, server, ss) // passon.go
	if err != nil {
		return nil, nil, err
	}
	defer leave()
	if token != nil && ss != nil {
		callCtx := ctx
		ctx = tool.WithProgress(ctx, func(p tool.Progress) {
			// Passed on in order with the server's other notices; a report
			// the client no longer reads is of no use: ignored.
			g.pass(server, noticeSize(p.Message), func() {
				_ = ss.NotifyProgress(callCtx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message})
			})
		})
	}
	c, held, err := g.answering(ctx, c, name)
	var raw json.RawMessage
	var res *mcp.CallToolResult
	switch {
	case err != nil:
		return nil, nil, err
	case held != "":
		raw, res, err = g.answered(ctx, held, name, c.InputResponses) // held.go
	case g.mayHold(server, c):
		raw, res, err = g.hold(ctx, snap, c, name, args)
	default:
		raw, res, err = snap.CallRaw(mcpclient.WithCaller(ctx, c), name, args)
	}
	if asking := (*mcpclient.AskingTask)(nil); errors.As(err, &asking) {
		res, err = g.asking(ctx, name, asking)
	}
	if err == nil && raw != nil {
		if err := g.room(callerOf(ctx).name, int64(len(raw))); err != nil {
			return nil, nil, err // results.go
		}
	}
	return raw, res, err
}

// gate asks the gateway's policy and the calling client's own about a
// call of the catalog served now, and returns that catalog if they allow it.
// A tool their patterns deny is hidden from the client, listings and
// searches alike, so its call is refused as a call of no tool: nothing
// says it exists, nor what the policy says.
func (g *Gateway) gate(ctx context.Context, name string, args json.RawMessage) (*catalog.Snapshot, error) {
	g.mu.Lock()
	snap, pol, own := g.served.snap, g.served.policy, g.served.clients[callerOf(ctx).entry]
	g.mu.Unlock()
	for _, p := range []*gate.Policy{pol, own} {
		if p == nil {
			continue
		}
		if !p.Allowed(name) {
			return nil, &tool.UnservedError{Name: name}
		}
		if err := p.Check(ctx, name, args); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// answer is what a client is told of a call that failed: an unknown tool
// and a server's JSON-RPC error are JSON-RPC errors (the server's code
// kept); everything a model can act on (a refusal, a broken output schema,
// a server that cannot be reached, a call whose outcome is unknown) is a
// result marked isError that says it. No message holds a secret: the
// errors of package mcptool name servers, tools and causes, never headers,
// tokens or environment values.
func answer(name string, err error) (*mcp.CallToolResult, error) {
	var (
		unserved *tool.UnservedError
		proto    *mcpclient.ProtocolError
		handed   *mcpclient.HandedTask
	)
	if wire, ok := err.(*jsonrpc.Error); ok {
		return nil, wire // the gateway's own refusal (taskstate.go)
	}
	switch {
	case errors.As(err, &handed):
		return nil, err // answered with the task (tasks.go)
	case errors.As(err, &unserved):
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	case errors.Is(err, context.Canceled), errors.As(err, &proto) && proto.Code != 0:
		return nil, relayError(err)
	}
	msg := err.Error()
	var refused *tool.RefusedError
	if errors.As(err, &refused) {
		msg = refused.Message
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
}

// relayError is a server's JSON-RPC error as the client's: its code, its
// message and its data as the server wrote them (the data says what a
// client should do: the capabilities a -32021 requires, say), so that the
// client reads what it would read from the server itself, on the fast path
// and through go-sdk alike (the gateway's log records the request and the
// error). Any other error is left as it is (go-sdk answers it as an
// internal error).
func relayError(err error) error {
	var proto *mcpclient.ProtocolError
	if errors.As(err, &proto) && proto.Code != 0 {
		relayed := &jsonrpc.Error{Code: proto.Code, Message: err.Error()}
		if server := (*jsonrpc.Error)(nil); errors.As(err, &server) {
			relayed.Message, relayed.Data = server.Message, server.Data
		}
		return relayed
	}
	return err
}
