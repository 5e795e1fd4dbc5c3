package sdkfix

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// argumentsMark is what go-sdk encodes in the place of a tools/call's
// arguments that the connection writes itself ([Catch.Arguments]); an
// interface made once, as each conversion would cost an allocation.
var argumentsMark any = markBytes

var markBytes = json.RawMessage(`"\u0000mcpbridge: the call's arguments"`)

// Arguments keeps args, a tools/call's arguments as written, for the
// connection to write, when they are large and valid JSON, and returns
// what the call's params are to carry in their place, for go-sdk to
// encode, and true: a mark, which the connection of a [Capture] replaces
// with args as it writes the request.
// go-sdk encodes params with encoding/json, which rereads and compacts a
// json.RawMessage byte by byte, twice, so that a relay would pay for its
// client's arguments three times over. Only a connection a Capture wraps
// ([Capture.Wraps]) writes them: over any other, pass args themselves.
// (Valid reads args once, at many times the speed of encoding/json.)
func (c *Catch) Arguments(args json.RawMessage) (mark any, ok bool) {
	if len(args) < spliceMin || !rawjson.Valid(args, -1) {
		return nil, false
	}
	c.mu.Lock()
	c.args = args
	c.mu.Unlock()
	return argumentsMark, true
}

// spliceMin is the size of arguments below which go-sdk's encoding costs
// less than the splice.
const spliceMin = 1024

// withArguments returns req, a tools/call of c's, with the arguments c
// keeps in the place of their mark, in a copy; req itself if c keeps
// none.
func (c *Catch) withArguments(req *jsonrpc.Request) (*jsonrpc.Request, error) {
	c.mu.Lock()
	args := c.args
	c.mu.Unlock()
	if args == nil || req.Method != "tools/call" {
		return req, nil
	}
	var at []byte
	rawjson.Members(req.Params, func(k, v []byte) bool {
		if string(k) == "arguments" && string(v) == string(markBytes) {
			at = v
			return false
		}
		return true
	})
	if at == nil {
		// Never the mark in the place of the arguments; the request fails
		// alone, the connection goes on.
		return nil, fmt.Errorf(`sending "tools/call": go-sdk's params hold no mark of the arguments: %w`,
			&jsonrpc.Error{Code: codeRejected, Message: "rejected by transport"})
	}
	start := cap(req.Params) - cap(at) // at is a slice of req.Params
	params := make(json.RawMessage, 0, len(req.Params)-len(at)+len(args))
	params = append(params, req.Params[:start]...)
	params = append(params, args...)
	params = append(params, req.Params[start+len(at):]...)
	out := *req
	out.Params = params
	return &out, nil
}
