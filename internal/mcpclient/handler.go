package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Handler returns the [tool.Handler] that runs a model's calls on this
// server. It may be taken before Connect; calls made while the provider is
// not connected fail with [ErrNotConnected].
//
// The handler serves the tools the provider offers ([Provider.Tools]) and
// declines any other name with a [tool.UnservedError], so that
// [tool.Compose] tries the next handler. It accepts the alias
// mcp__<server>__<tool> of any of its tools, where <server> is the
// provider's name ([Provider.Name]): an alias naming another server is not
// this handler's.
//
// Before a call is sent, its arguments (nil or empty meaning {}) are checked
// against the tool's input schema by the validator every handler of
// mcpbridge uses ([toolschema.Validator.Prepare], which also decodes a
// value the model sent as a JSON string where the schema wants an object
// or an array): a violation is a [tool.RefusedError] naming each argument at
// fault, and the server never sees the call. An input schema that does not
// compile is logged once, and the server judges the arguments.
//
// A result the server marks isError becomes a [tool.FailedError] (failed,
// not refused), as does a successful result that breaks the tool's output
// schema (wrapping a [SchemaError]). Results are converted for the model as
// [ToReply] describes; see [Provider.CallToolResult] for a result that
// cannot be decoded.
func (p *Provider) Handler() tool.Handler { return &handler{p: p} }

// Relay returns a handler that sends every call to the server, for a host
// that has chosen the tool and checked the arguments itself (package
// toolset does, and a gateway that serves tools this connection's listing
// never showed): it declines no name, so it goes last in a composition,
// and it does not check arguments. An alias of this server's is read as
// its tool. Results and errors are as [Provider.Handler]'s.
func (p *Provider) Relay() tool.Handler { return &handler{p: p, relay: true} }

// A handler is a provider's [tool.Handler]: it resolves a called name
// against a listing, checks the arguments, sends the call ([Provider.call])
// and converts the result for the model.
type handler struct {
	p     *Provider
	relay bool     // serve any name, arguments unchecked
	cat   *catalog // the listing served; nil: the session's current one
}

func (h *handler) Call(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
	p := h.p
	s, err := p.conn.live(operation{"tools/call", name})
	if err != nil {
		return tool.Reply{}, err
	}
	cat := h.cat
	if cat == nil {
		cat = s.catalog()
	}
	target, ok := p.resolve(name, cat.isOffered)
	switch {
	case h.relay:
		args, err = objectArgs(name, args)
	case !ok:
		return tool.Reply{}, &tool.UnservedError{Name: name}
	default:
		args, err = p.arguments(cat.listed[target], name, args)
	}
	if err != nil {
		p.tel.refused(ctx, name, err)
		return tool.Reply{}, err
	}
	res, err := p.call(ctx, s, target, args, true)
	switch {
	case err != nil:
		return tool.Reply{}, failure(name, err)
	case res.IsError:
		return tool.Reply{}, &tool.FailedError{Name: name, Message: toText(res, p.name)}
	}
	return toResult(ctx, res, p.name), nil
}

// failure is the error of a call of the tool name that failed with err: a
// result that breaks the output schema is the tool's failure.
func failure(name string, err error) error {
	var se *SchemaError
	if !errors.As(err, &se) {
		return err
	}
	msg := "the server's result does not match the tool's output schema: "
	if strings.HasPrefix(se.Pointer, "/outputSchema") || errors.Is(err, toolschema.ErrTooComplex) {
		msg = "the server's result cannot be checked: "
	}
	return &tool.FailedError{Name: name, Message: msg + se.Err.Error(), Err: err}
}

// resolve maps a called name to the server's tool name: the name itself if
// known, or, for the alias mcp__<server>__<tool> whose server part is this
// provider's name, its tool part if known. ok reports whether the result is
// known; if not, target is what a relayed call sends: the tool part of an
// alias of this server, or else name itself.
func (p *Provider) resolve(name string, known func(string) bool) (target string, ok bool) {
	if known(name) {
		return name, true
	}
	o, ok, _ := names.Resolve(name, func(o tool.Origin) bool { return o.Server == p.name })
	if !ok {
		return name, false
	}
	return o.Tool, known(o.Tool)
}

// arguments checks args (nil or empty: {}) against the input schema of lt,
// called as name, and returns what to send. The schema is compiled at the
// tool's first call.
func (p *Provider) arguments(lt *listedTool, name string, args json.RawMessage) (json.RawMessage, error) {
	lt.inputOnce.Do(func() {
		v, err := toolschema.Compile(lt.def.InputSchema)
		if err != nil {
			p.cfg.logger.Warn("arguments not checked locally: the input schema does not compile",
				"server", p.name, "tool", lt.def.Name, "error", err)
			return
		}
		lt.input = v
	})
	if lt.input == nil {
		return objectArgs(name, args)
	}
	args, err := lt.input.Prepare(args, false)
	if err != nil {
		return nil, &tool.RefusedError{Name: name, Message: err.Error()}
	}
	return args, nil
}

// objectArgs returns args if it is a JSON object, {} for none (empty or
// null, as toolschema.Validator.Prepare reads them).
func objectArgs(name string, args json.RawMessage) (json.RawMessage, error) {
	if t := bytes.TrimSpace(args); len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if !isObject(args) {
		return nil, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
	}
	return args, nil
}

func (c *catalog) isOffered(name string) bool { return c.offers[name] }
func (c *catalog) isListed(name string) bool  { return c.listed[name] != nil }

func isObject(data json.RawMessage) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
