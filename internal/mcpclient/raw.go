package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// CallToolRaw calls a tool as [Provider.CallToolResult] does (the same
// timeout, progress, telemetry, output schema check, and resend of a call
// whose exchange was lost, for a tool annotated read-only or idempotent),
// but returns the server's result as the server wrote it, never decoded:
// for a host that relays it to an MCP client unchanged (package gateway),
// the JSON of the result is the server's, byte for byte.
//
// The call is sent as every call is, on the session's one connection; the
// transport takes a plain result from go-sdk before it decodes it
// ([sdkfix.Catch]), over stdio, streamable HTTP and go-sdk's in-memory and
// io transports. What comes back decoded instead, with a nil raw result:
// a result over another transport (the legacy SSE one, one given to
// [FromTransport]), one go-sdk is to judge (a task, followed to its end;
// an input_required result, handed whole for the caller to answer in its
// next call; a shape the protocol does not allow), and every result while
// the call's content is recorded on its span ([WithCallContent]).
func (p *Provider) CallToolRaw(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *mcp.CallToolResult, error) {
	s, target, body, err := p.hostCall(name, args)
	if err != nil {
		return nil, nil, err
	}
	if p.tel != nil && p.tel.content {
		res, err := p.call(ctx, s, target, body, false)
		return nil, res, err
	}
	ctx, out := withRawCall(ctx)
	res, err := p.call(ctx, s, target, body, false)
	switch {
	case err != nil:
		return nil, nil, err
	case res == out.res:
		return out.raw, nil, nil
	}
	return nil, res, nil
}

// A rawCall rides in the context of a call made raw: the call keeps the
// result the transport took here ([Provider.taken]), and goes on with its
// head alone.
type rawCall struct {
	raw json.RawMessage
	res *mcp.CallToolResult
}

var rawCallKey = ctxkey.New[*rawCall]("mcptool raw call")

func withRawCall(ctx context.Context) (context.Context, *rawCall) {
	c := new(rawCall)
	return rawCallKey.With(ctx, c), c
}

func rawCallOf(ctx context.Context) *rawCall { return rawCallKey.Value(ctx) }

// head is what a call checks of the plain result raw: whether it is
// marked isError, and its structured content as written; a text part
// stands for the content, which [sdkfix.Plain] found an array.
func (p *Provider) head(name string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var isError, structured []byte
	rawjson.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "isError":
			isError = v
		case "structuredContent":
			structured = v
		}
		return true
	})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{}}, IsError: string(isError) == "true"}
	if len(structured) > 0 && string(structured) != "null" {
		if !json.Valid(structured) {
			return nil, &ProtocolError{Server: p.name, Op: operation{"tools/call", name}.String(), Err: fmt.Errorf("structuredContent is not JSON")}
		}
		res.StructuredContent = json.RawMessage(structured)
	}
	return res, nil
}
