package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// fast serves a tools/call of a stateless client (2026-07-28) without
// go-sdk's server: it reads the JSON-RPC envelope and the call's name,
// arguments and _meta, makes the checks the gateway's middleware and
// callTool make (draining, the client's rate limit, the policies, the
// toolset's argument check), calls the server raw
// ([toolset.Snapshot.CallRaw]) and writes the server's result back as it
// came, as one event, as go-sdk's handler does. go-sdk decodes every
// message with a new decoder of tens of kilobytes, a result whole into its
// types, and re-encodes a tool's input schema on each call for its header
// check; a relay needs none of it.
//
// It reports whether it served r, whose body the endpoint read (http.go). A
// request it does not serve whole is left to go-sdk, its body intact: anything but a lone tools/call of a
// tool served, with protocol 2026-07-28 in its header and _meta, Mcp-Method
// and Mcp-Name headers that agree with its body, and params holding only
// name, arguments and _meta (no progress token, no log level, no answers
// to a server's questions: inputResponses, requestState); a call of the
// disclosure tools; a tool whose arguments go in headers (x-mcp-header);
// a member name written with an escape; a body go-sdk's decoder would read
// otherwise, or answer with another id ([parseCall]).
// go-sdk answers those, and every malformed request, as before.
func (g *Gateway) fast(w http.ResponseWriter, r *http.Request, body []byte) bool {
	h := r.Header
	if r.Method != http.MethodPost || h.Get("Mcp-Protocol-Version") != statelessVersion || h.Get("Mcp-Method") != "tools/call" ||
		h.Get("Last-Event-ID") != "" || g.pick(r) != g.full || !sdkfix.Accepts(h) || sdkfix.Rebound(r) {
		return false
	}
	if call, ok := parseCall(body); ok && h.Get("Mcp-Name") == call.name && g.fastTool(call.name) {
		g.serveFast(w, r, call)
		return true
	}
	return false
}

// A fastCall is the part of a tools/call request the fast path reads.
type fastCall struct {
	id   json.RawMessage
	name string
	args json.RawMessage
	meta json.RawMessage         // the _meta object, as written
	caps *mcp.ClientCapabilities // what the client declared
}

// parseCall reads a tools/call the fast path serves, and false for any
// other request. It reads the members of the envelope, params and _meta
// where they are written ([rawjson.Members]), decoding only the values it
// uses, and takes only the members it knows, each spelled exactly: go-sdk's
// decoding matches names exactly, where encoding/json's matches a struct's
// fields in any case. It takes only what go-sdk's decoder reads alike and
// answers with the id as written, and so refuses a body nested deeper than
// that decoder takes (maxDepth), a member of the envelope or params named
// twice (a decoder merges two _meta objects into one), an id go-sdk would
// rewrite or refuse ([plainID]), and a number in _meta a float64 cannot
// hold (go-sdk decodes _meta whole, and refuses the call).
func parseCall(body []byte) (fastCall, bool) {
	if !rawjson.Valid(body, maxDepth) {
		return fastCall{}, false
	}
	var call fastCall
	var version, method, params []byte
	ok := rawjson.Members(body, func(k, v []byte) bool {
		var seen bool
		switch string(k) {
		case "jsonrpc":
			seen, version = version != nil, v
		case "id":
			seen, call.id = call.id != nil, v
		case "method":
			seen, method = method != nil, v
		case "params":
			seen, params = params != nil, v
		default:
			return false
		}
		return !seen
	})
	if m, _ := rawjson.String(method); !ok || string(version) != `"2.0"` || m != "tools/call" || !plainID(call.id) {
		return fastCall{}, false
	}
	// Only the members read here: any other (inputResponses,
	// requestState, task) is go-sdk's to read.
	var name []byte
	ok = rawjson.Members(params, func(k, v []byte) bool {
		var seen bool
		switch string(k) {
		case "name":
			seen, name = name != nil, v
		case "arguments":
			seen, call.args = call.args != nil, v
		case "_meta":
			seen, call.meta = call.meta != nil, v
		default:
			return false
		}
		return !seen
	})
	if !ok || !isObject(call.meta) {
		return fastCall{}, false
	}
	if call.name, ok = rawjson.String(name); !ok {
		return fastCall{}, false
	}
	var protocol, caps, info []byte
	ok = rawjson.Members(call.meta, func(k, v []byte) bool {
		switch string(k) {
		case mcp.MetaKeyProtocolVersion:
			protocol = v
		case mcp.MetaKeyClientCapabilities:
			caps = v
		case mcp.MetaKeyClientInfo:
			info = v
		case "progressToken", mcp.MetaKeyLogLevel:
			return false
		}
		return true
	})
	if v, _ := rawjson.String(protocol); !ok || v != statelessVersion || !isObject(caps) || !rawjson.FloatsFit(call.meta) {
		return fastCall{}, false
	}
	call.caps = new(mcp.ClientCapabilities)
	if json.Unmarshal(caps, call.caps) != nil || info != nil && json.Unmarshal(info, new(mcp.Implementation)) != nil {
		return fastCall{}, false
	}
	if len(call.args) > 0 && string(call.args) != "null" && !isObject(call.args) {
		return fastCall{}, false
	}
	return call, true
}

// maxDepth is the deepest nesting go-sdk's decoder takes in a message.
const maxDepth = 1000

// plainID reports whether id, as written, is one go-sdk answers with as
// written: a string, or an integer a float64 holds exactly. go-sdk reads a
// number id as a float64 and answers with it cut to an int64, so that 1.5,
// 1e2, -0 and 2^53+1 come back as 1, 100, 0 and 2^53, and refuses 1e400.
func plainID(id []byte) bool {
	if len(id) > 0 && id[0] == '"' {
		return true
	}
	if string(id) == "-0" || bytes.ContainsAny(id, ".eE") {
		return false
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -1<<53 <= n && n <= 1<<53
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}

// fastTool reports whether name is a tool of the catalog served whose
// arguments go only in the body.
func (g *Gateway) fastTool(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.served.tools[name]; !ok {
		return false
	}
	for _, d := range g.served.defs {
		if d.Name == name {
			return !bytes.Contains(d.InputSchema, []byte("x-mcp-header"))
		}
	}
	return false
}

// serveFast serves call, read from r.
func (g *Gateway) serveFast(w http.ResponseWriter, r *http.Request, call fastCall) {
	info := auth.TokenInfoFromContext(r.Context())
	var client string
	if info != nil {
		client = info.UserID
	}
	if !g.drain.enter() {
		writeAnswer(w, call.id, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: ErrDraining.Error()})
		return
	}
	defer g.drain.leave()
	start := time.Now()
	ctx, end := g.serverSpan(r.Context(), "tools/call", call.name, g.traceMeta(call.meta), spanAttrs("tools/call", call.name, true))
	// The endpoint counted the request against the client's rate limit
	// (http.go).
	ctx, leave, err := g.admitted(ctx, info, false)
	if err != nil {
		end(false, err)
		g.logRequest(ctx, "tools/call", call.name, client, start, false, err)
		writeAnswer(w, call.id, nil, err)
		return
	}
	defer leave()
	// A stateless client can be asked only in a result; a server that
	// reads capabilities per request is told the client's, and a task is
	// handed to a client that follows tasks (tasks.go).
	c := mcpclient.Caller{Relay: mcpclient.ResultOnly{}, Capabilities: call.caps, FollowsTasks: call.caps.Extensions[tasksExtension] != nil}
	result, isError, err := g.callFast(ctx, call, c)
	end(isError, err)
	g.logRequest(ctx, "tools/call", call.name, client, start, isError, err)
	writeAnswer(w, call.id, result, err)
}

// traceMeta is what of a call's _meta may carry its trace context (its
// strings), read only when the gateway traces.
func (g *Gateway) traceMeta(meta json.RawMessage) map[string]any {
	if g.tel == nil {
		return nil
	}
	out := make(map[string]any)
	rawjson.Members(meta, func(k, v []byte) bool {
		if s, ok := rawjson.String(v); ok {
			out[string(k)] = s
		}
		return true
	})
	return out
}

// callFast makes the call and returns the result to write: the server's
// as it came, or one the gateway encodes (a refusal, a failure a model can
// act on, a task handed to the client, a task's question for it, what the
// call answered decoded), and whether it is marked isError; or the
// JSON-RPC error to answer with.
func (g *Gateway) callFast(ctx context.Context, call fastCall, c mcpclient.Caller) ([]byte, bool, error) {
	raw, res, err := g.call(ctx, nil, c, nil, call.name, call.args)
	var handed *mcpclient.HandedTask
	switch {
	case errors.As(err, &handed):
		h := taskHandle{handed.Server, callerOf(ctx).name, handed.ID}
		task, err := taskResult(handed.Created, h, g.tasks.format(h))
		if err != nil {
			return nil, false, err
		}
		task.Meta = withServerInfo(task.Meta)
		data, err := json.Marshal(task)
		return data, false, err
	case err != nil:
		if res, err = answer(call.name, err); err != nil {
			return nil, false, err
		}
	case raw != nil:
		data, isError := completeRaw(raw)
		return data, isError, nil
	}
	data, err := completeResult(res)
	return data, res.IsError, err
}

// completeRaw is a server's raw result as a 2026-07-28 client reads it:
// with a resultType, "complete" when the server wrote none or null, as
// go-sdk's server writes it; and whether it is marked isError.
func completeRaw(raw json.RawMessage) ([]byte, bool) {
	resultType, isError := resultHead(raw)
	switch {
	case resultType == nil:
		return withResultType(raw), isError
	case string(resultType) == "null":
		// Replaced where it is written (resultType is a slice of raw):
		// a resultType put before it would leave the result with two,
		// which decoders read apart.
		at := cap(raw) - cap(resultType)
		out := make([]byte, 0, len(raw)+len(`"complete"`))
		out = append(out, raw[:at]...)
		out = append(out, `"complete"`...)
		return append(out, raw[at+len(resultType):]...), isError
	}
	return raw, isError
}

// resultHead returns the resultType of the result raw as written, a slice
// of raw, or nil if it has none, and whether it is marked isError: read
// where they are written, decoded only for a member name written with an
// escape, when a resultType that is not a string counts as none.
// mcptool judged the result's shape.
func resultHead(raw json.RawMessage) (resultType []byte, isError bool) {
	var flag []byte
	if rawjson.Members(raw, func(k, v []byte) bool {
		switch string(k) {
		case "resultType":
			resultType = v
		case "isError":
			flag = v
		}
		return true
	}) {
		return resultType, string(flag) == "true"
	}
	var head struct {
		ResultType *string `json:"resultType"`
		IsError    bool    `json:"isError"`
	}
	_ = json.Unmarshal(raw, &head)
	if head.ResultType == nil {
		return nil, head.IsError
	}
	return strconv.AppendQuote(nil, *head.ResultType), head.IsError
}

// withResultType inserts "resultType":"complete" as the first member of
// the object data.
func withResultType(data []byte) []byte {
	data = bytes.TrimSpace(data)
	out := make([]byte, 0, len(data)+len(`"resultType":"complete",`))
	out = append(out, '{')
	out = append(out, `"resultType":"complete"`...)
	if rest := bytes.TrimSpace(data[1:]); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, data[1:]...)
}

// completeResult encodes a result the gateway decoded as go-sdk's server
// would for a 2026-07-28 client: resultType set once, the gateway's
// serverInfo in its _meta unless the server's is there. A result decoded
// from a 2026-07-28 server keeps the resultType it came with, which go-sdk
// encodes again, so it is set only where it is missing.
func completeResult(res *mcp.CallToolResult) ([]byte, error) {
	shown := *res
	shown.Meta = withServerInfo(shown.Meta)
	data, err := json.Marshal(&shown)
	if err != nil {
		return nil, err
	}
	data, _ = completeRaw(data)
	return data, nil
}

// withServerInfo is meta with the gateway's serverInfo, unless the server's
// is there, as go-sdk's server sets it; meta is not modified.
func withServerInfo(meta mcp.Meta) mcp.Meta {
	if _, ok := meta[mcp.MetaKeyServerInfo]; ok {
		return meta
	}
	out := make(mcp.Meta, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	out[mcp.MetaKeyServerInfo] = &implementation
	return out
}

// writeAnswer writes the JSON-RPC response to the request id, its result
// (as it is: json.Marshal would escape it) or its error, as go-sdk's
// handler does for a request of 2026-07-28: one event of a stream, but an
// error whose code SEP-2575 gives an HTTP status (a method not found, 404;
// invalid params, an unsupported protocol version, a missing client
// capability, 400) as a JSON body with that status.
func writeAnswer(w http.ResponseWriter, id json.RawMessage, result []byte, err error) {
	member, status := `,"result":`, 0
	if err != nil {
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			wire = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		var merr error
		if result, merr = json.Marshal(wire); merr != nil {
			http.Error(w, merr.Error(), http.StatusInternalServerError)
			return
		}
		member = `,"error":`
		switch wire.Code {
		case jsonrpc.CodeMethodNotFound:
			status = http.StatusNotFound
		case jsonrpc.CodeInvalidParams, mcp.CodeUnsupportedProtocolVersion, mcp.CodeMissingRequiredClientCapabilities:
			status = http.StatusBadRequest
		}
	}
	// The message, as one event of a stream unless it has a status,
	// written around the result rather than with a copy of it: a result
	// may be megabytes, held for as long as the client takes to read it.
	const head, tail = "event: message\ndata: ", "\n\n"
	open := make([]byte, 0, len(head)+len(id)+64)
	if status == 0 {
		open = append(open, head...)
	}
	open = append(open, `{"jsonrpc":"2.0","id":`...)
	open = append(open, id...)
	open = append(open, member...)
	end := "}"
	h := w.Header()
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Connection", "keep-alive")
	if status != 0 {
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
	} else {
		h.Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		end += tail
	}
	// A client gone meanwhile misses its answer; nothing to do.
	if _, err := w.Write(open); err == nil {
		if _, err = w.Write(result); err == nil {
			_, _ = io.WriteString(w, end)
		}
	}
}
