package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// A tool's result crosses go-sdk's server as the server wrote it, as it
// crosses the fast path (fast.go): go-sdk's tool handler returns a
// *mcp.CallToolResult, which go-sdk would encode anew (a member it does not
// know dropped, keys reordered, characters escaped). So the handler hands
// go-sdk the result's head alone, the raw result riding in the request's
// context, and passRaw, the outermost middleware, answers with the raw
// result in its place. Both paths so write the same bytes.

// A passing holds the raw result of the tools/call whose context carries
// it.
type passing struct{ raw json.RawMessage }

var passingKey = ctxkey.New[*passing]("gateway raw result")

// passRaw is the receiving middleware that answers a tools/call whose
// handler passed a raw result ([passed]) with that result.
func (g *Gateway) passRaw(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p := new(passing)
		res, err := next(passingKey.With(ctx, p), method, req)
		if err != nil || p.raw == nil {
			return res, err
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		return &rawResult{raw: p.raw, complete: ss == nil || stateless(ss)}, nil
	}
}

// passed is what a tools/call handler returns to go-sdk for the result
// raw, which passRaw writes in its place: its head, which the middlewares
// read (isError).
func passed(ctx context.Context, raw json.RawMessage) *mcp.CallToolResult {
	if p := passingKey.Value(ctx); p != nil {
		p.raw = raw
	}
	var isError []byte
	rawjson.Members(raw, func(k, v []byte) bool {
		if string(k) == "isError" {
			isError = v
		}
		return true
	})
	return &mcp.CallToolResult{Content: []mcp.Content{}, IsError: string(isError) == "true"}
}

// A rawResult is a server's tools/call result as it wrote it, for a client
// of 2026-07-28 (complete) with a resultType, "complete" where it has none
// ([completeRaw]). The _meta go-sdk sets on a result (the gateway's
// serverInfo) is not written: the server's result is the client's.
type rawResult struct {
	mcp.ResultBase
	raw      json.RawMessage
	complete bool
}

func (r *rawResult) MarshalJSON() ([]byte, error) {
	if r.complete {
		data, _ := completeRaw(r.raw)
		return data, nil
	}
	return r.raw, nil
}
