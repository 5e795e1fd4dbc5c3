package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/tool"
)

// WithElicitation lets the server ask the user for input during a call,
// and declares the elicitation capability, in form and URL mode, so that
// it may: the server's elicitation/create, and on protocol 2026-07-28 the
// elicitations a tool's input_required result asks for (go-sdk sends the
// call again with the answers). Without it the provider claims no such
// capability and a server cannot ask.
//
// ask answers for the user; a call whose context carries an elicitor of its
// own ([tool.WithElicitor]: package agent passes its Config.Elicit so) is
// asked through that one instead. A request is checked before ask sees it:
// a form must be of the specification's restricted schema
// ([tool.Elicitation] Schema), a URL absolute http or https; one that is not is
// refused to the server as invalid params. The [tool.Elicitation] names the
// server and, when the request is surely one call's, the tool. An accepted
// form's content is checked against the form before it is sent
// ([tool.Elicit]); one that does not fit fails the request and is not sent.
//
// A server that will not run a call until the user has completed URL
// elicitations (the error -32042 of protocol 2025-11-25) has each shown to
// ask; once every one is accepted, the provider waits, within the call's
// timeout, for the server to say each is complete
// (notifications/elicitation/complete), then sends the call once more. A
// URL elicitation declined or cancelled there fails the call with a
// [tool.RefusedError].
func WithElicitation(ask tool.Elicitor) Option {
	return func(c *config) { c.elicit = ask }
}

// elicit answers the server's elicitation/create, or an elicitation of an
// input_required result.
func (p *Provider) elicit(ctx context.Context, req *mcp.ElicitRequest, forms *sdkfix.Schemas) (*mcp.ElicitResult, error) {
	if res, ok, err := relayed(p, ctx, func(ctx context.Context, r Relay) (*mcp.ElicitResult, error) {
		return p.relayElicit(ctx, r, req.Params)
	}); ok {
		return res, err
	}
	if p.cfg.elicit == nil {
		return nil, fmt.Errorf("elicitation outside a relayed call: %w", errors.ErrUnsupported)
	}
	e, err := p.elicitation(req.Params, forms)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	a, err := p.ask(ctx, e)
	if err != nil {
		return nil, err
	}
	return &mcp.ElicitResult{Action: string(a.Action), Content: a.Content}, nil
}

// ask asks the user through the elicitor of the call the request belongs
// to, or the provider's, and returns the checked answer.
func (p *Provider) ask(ctx context.Context, e *tool.Elicitation) (tool.Answer, error) {
	var ask tool.Elicitor
	ask, e.Tool = asker(p.inflight.of(ctx), p.cfg.elicit)
	a, err := tool.Elicit(tool.WithElicitor(ctx, ask), e)
	if err != nil {
		p.cfg.logger.DebugContext(ctx, "an elicitation was not answered", "server", p.name, "error", err)
		return tool.Answer{}, fmt.Errorf("elicitation: %w", err)
	}
	if a.Content != nil {
		// As JSON decodes it, which go-sdk's own check of the content
		// expects (float64, not int64; []any, not []string).
		a.Content = deepCopy(a.Content)
	}
	return a, nil
}

// elicitation checks a request of the server's and makes it what a host
// is shown: a form's fields in the order the server wrote them, where
// forms kept it.
func (p *Provider) elicitation(params *mcp.ElicitParams, forms *sdkfix.Schemas) (*tool.Elicitation, error) {
	if params == nil {
		return nil, errors.New("no params")
	}
	e := &tool.Elicitation{Server: p.name, Message: params.Message}
	switch params.Mode {
	case "", "form":
		e.Schema = forms.Form(params.RequestedSchema)
		if _, err := form.Parse(e.Schema); err != nil {
			return nil, err
		}
	case "url":
		u, err := url.Parse(params.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, errors.New("the url of a URL elicitation must be an absolute http or https URL")
		}
		e.URL = u.String()
	default:
		return nil, fmt.Errorf("unknown elicitation mode %q", params.Mode)
	}
	return e, nil
}

// completions are the URL elicitations whose completion a call waits for,
// by elicitationId.
type completions struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

// expect returns a channel closed when the server says the elicitation id
// is complete, and the function that stops waiting.
func (c *completions) expect(id string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	c.mu.Lock()
	if c.waiting == nil {
		c.waiting = map[string]chan struct{}{}
	}
	c.waiting[id] = ch
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		if c.waiting[id] == ch {
			delete(c.waiting, id)
		}
		c.mu.Unlock()
	}
}

// completed is go-sdk's handler of notifications/elicitation/complete. An
// id no call waits for is ignored, as the specification requires.
func (c *completions) completed(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.waiting[req.Params.ElicitationID]; ok {
		close(ch)
		delete(c.waiting, req.Params.ElicitationID)
	}
}

// elicitFirst handles the server's refusal to run the call of name until
// URL elicitations are complete (2025-11-25, client/elicitation, "URL
// Elicitation Required Error"). It reports whether the call may be sent
// again: the user accepted each and the server said each is complete. A
// refusal by the user is a [tool.RefusedError]; err of any other kind is
// not its business (false, nil).
func (p *Provider) elicitFirst(ctx context.Context, name string, err error) (bool, error) {
	if err == nil || p.cfg.elicit == nil {
		return false, nil
	}
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != mcp.CodeURLElicitationRequired {
		return false, nil
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if err := json.Unmarshal(wire.Data, &data); err != nil || len(data.Elicitations) == 0 {
		return false, fmt.Errorf("a URL elicitation required error without elicitations: %w", err)
	}
	var waits []<-chan struct{}
	for _, params := range data.Elicitations {
		if params.Mode != "url" || params.ElicitationID == "" {
			return false, errors.New("a URL elicitation required error lists an elicitation that is not in URL mode with an id")
		}
		// Expected before the user is asked: the server may say it is
		// complete as soon as the page is opened.
		done, stop := p.completions.expect(params.ElicitationID)
		defer stop()
		waits = append(waits, done)
	}
	for _, params := range data.Elicitations {
		e, err := p.elicitation(params, nil) // URL mode: no form
		if err != nil {
			return false, err
		}
		a, err := p.ask(ctx, e)
		if err != nil {
			return false, err
		}
		if a.Action != "accept" {
			return false, &tool.RefusedError{Name: name, Message: fmt.Sprintf("the server %q asked the user to complete a step in a browser first, and the user did not (%s)", p.name, a.Action)}
		}
	}
	for _, done := range waits {
		select {
		case <-done:
		case <-ctx.Done():
			return false, fmt.Errorf("waiting for the server to say the user completed the URL elicitation: %w", context.Cause(ctx))
		}
	}
	return true, nil
}
