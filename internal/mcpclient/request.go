package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/tool"
)

// ReadResource reads the resource at uri (an MCP App's HTML, a document) and
// returns the server's result as it is, but for a content the server wrote as
// null, which is left out. It works with or without discovery.
// Made for a [Caller] ([WithCaller]), it is relayed as a tool call is: the
// caller's answers go with it, what the server asks goes to the caller's
// relay, and a question left to the caller's client comes back in the
// result (InputRequests, RequestState).
func (p *Provider) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	op := operation{"resources/read", uri}
	s, err := p.conn.live(op)
	if err != nil {
		return nil, err
	}
	var res *mcp.ReadResourceResult
	err = p.request(ctx, s, op, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		c := callerOf(ctx)
		raw, err := p.askedFor(ctx, func(ctx context.Context) error {
			var err error
			res, err = s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, InputResponses: c.InputResponses, RequestState: c.RequestState})
			return err
		})
		if raw != nil {
			res = new(mcp.ReadResourceResult)
			return json.Unmarshal(raw, res)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, &ProtocolError{Server: p.name, Op: op.String(), Err: errors.New("the result is null")}
	}
	res.Contents = slices.DeleteFunc(res.Contents, func(c *mcp.ResourceContents) bool { return c == nil })
	return res, nil
}

// ReadForModel reads the resource at uri, as [Provider.ReadResource] does,
// and returns what a model reads of it, by the rules of [ToReply]: each
// content as the embedded resource it would be in a tool's result (text,
// or a note), but a blob whose MIME type is image/* as an image, which a
// vision model sees when it decodes within [MaxImagePixels]. It is the
// tool.Server Resources function of the server's resources in [Provider.Offer]'s Set.
func (p *Provider) ReadForModel(ctx context.Context, uri string) (tool.Reply, error) {
	res, err := p.ReadResource(ctx, uri)
	if err != nil {
		return tool.Reply{}, err
	}
	content := make([]mcp.Content, len(res.Contents))
	for i, c := range res.Contents {
		if c != nil && c.Blob != nil && strings.HasPrefix(c.MIMEType, "image/") {
			content[i] = &mcp.ImageContent{MIMEType: c.MIMEType, Data: c.Blob}
			continue
		}
		content[i] = &mcp.EmbeddedResource{Resource: c}
	}
	return toResult(ctx, &mcp.CallToolResult{Content: content}, p.name), nil
}

// Request sends any JSON-RPC request, such as a method go-sdk does not model
// (skills/list, say), and returns its result as raw JSON. params is anything
// that encodes as a JSON object, or nil; a json.RawMessage is sent as it is.
// A JSON-RPC error answer is a [ProtocolError] with its code. A request
// about a task of the 2026-07-28 extension (tasks/get, tasks/update,
// tasks/cancel, a [HandedTask]'s) names the task in the Mcp-Name header
// over streamable HTTP, as the provider's own do.
//
// For the methods go-sdk models (ping, tools/list, resources/read and the
// other standard requests), the request goes through go-sdk's typed call and
// the result is re-encoded, so key order and unknown members may differ from
// what the server sent. Made for a [Caller], a resources/read or
// prompts/get is relayed as [Provider.ReadResource] says; the caller's
// answers are in params, the caller's to put there.
func (p *Provider) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	op := operation{method: method}
	s, err := p.conn.live(op)
	if err != nil {
		return nil, err
	}
	body, err := encodeParams(params)
	if err != nil {
		return nil, &ConfigError{Server: p.name, Option: "params", Err: err}
	}
	var out json.RawMessage
	err = p.request(ctx, s, op, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		if std, ok := standard[method]; ok {
			raw, err := p.askedFor(ctx, func(ctx context.Context) error {
				var err error
				out, err = std(ctx, s.cs, body)
				return err
			})
			if raw != nil {
				out = raw
			}
			return err
		}
		var err error
		out, err = s.send(s.taskRoute(ctx, method, body), method, body)
		return err
	})
	return out, err
}

// send sends method, one go-sdk does not model, with params as they are
// and returns its result as it came.
func (s *session) send(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := s.register(method); err != nil {
		return nil, err
	}
	res, err := mcp.CallCustomMethod[*rawParams, *rawResult](ctx, s.cs, method, &rawParams{raw: params})
	if err != nil {
		return nil, err
	}
	return res.raw, nil
}

func encodeParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	}
	return json.Marshal(params)
}

// register makes method sendable on the session's client; go-sdk refuses to
// send a method it was not told of.
func (s *session) register(method string) error {
	s.customMu.Lock()
	defer s.customMu.Unlock()
	if s.custom[method] {
		return nil
	}
	if err := mcp.AddSendingCustomMethod[*rawParams, *rawResult](s.client, method); err != nil {
		return err
	}
	if s.custom == nil {
		s.custom = map[string]bool{}
	}
	s.custom[method] = true
	return nil
}

// rawParams sends params as they are, with any _meta go-sdk adds merged in.
type rawParams struct {
	mcp.ParamsBase
	raw json.RawMessage
}

func (p *rawParams) MarshalJSON() ([]byte, error) {
	if len(p.Meta) == 0 {
		if len(p.raw) == 0 {
			return []byte("{}"), nil
		}
		return p.raw, nil
	}
	fields := map[string]json.RawMessage{}
	if len(p.raw) > 0 {
		if err := json.Unmarshal(p.raw, &fields); err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
	}
	meta := map[string]any(p.Meta)
	if existing, ok := fields["_meta"]; ok {
		var m map[string]any
		if err := json.Unmarshal(existing, &m); err == nil {
			for k, v := range p.Meta {
				m[k] = v
			}
			meta = m
		}
	}
	data, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = data
	return json.Marshal(fields)
}

// rawResult keeps a result's JSON as it came.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) UnmarshalJSON(data []byte) error {
	r.raw = append(json.RawMessage(nil), data...)
	return nil
}

// standard are the requests go-sdk models, sent through its typed calls:
// go-sdk will not send a standard method raw.
var standard = map[string]func(context.Context, *mcp.ClientSession, json.RawMessage) (json.RawMessage, error){
	"ping":                     ping,
	"tools/list":               typed((*mcp.ClientSession).ListTools),
	"tools/call":               typed((*mcp.ClientSession).CallTool),
	"resources/list":           typed((*mcp.ClientSession).ListResources),
	"resources/templates/list": typed((*mcp.ClientSession).ListResourceTemplates),
	"resources/read":           typed((*mcp.ClientSession).ReadResource),
	"prompts/list":             typed((*mcp.ClientSession).ListPrompts),
	"prompts/get":              typed((*mcp.ClientSession).GetPrompt),
	"completion/complete":      typed((*mcp.ClientSession).Complete),
	"logging/setLevel":         empty((*mcp.ClientSession).SetLoggingLevel),
	"resources/subscribe":      empty((*mcp.ClientSession).Subscribe),
	"resources/unsubscribe":    empty((*mcp.ClientSession).Unsubscribe),
}

func ping(ctx context.Context, cs *mcp.ClientSession, _ json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage("{}"), cs.Ping(ctx, nil)
}

// empty is typed for a method whose result is empty.
func empty[P any](call func(*mcp.ClientSession, context.Context, *P) error) func(context.Context, *mcp.ClientSession, json.RawMessage) (json.RawMessage, error) {
	return typed(func(cs *mcp.ClientSession, ctx context.Context, p *P) (struct{}, error) {
		return struct{}{}, call(cs, ctx, p)
	})
}

// typed sends a request through call, a typed method of go-sdk's session:
// raw decoded as its parameters, its result encoded.
func typed[P, R any](call func(*mcp.ClientSession, context.Context, *P) (R, error)) func(context.Context, *mcp.ClientSession, json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, cs *mcp.ClientSession, raw json.RawMessage) (json.RawMessage, error) {
		params := new(P)
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, params); err != nil {
				return nil, fmt.Errorf("params: %w", err)
			}
		}
		res, err := call(cs, ctx, params)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}
