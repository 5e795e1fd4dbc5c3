package mcpclient

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// newClient makes the go-sdk client of a session, with what the host
// answers for its user: elicitation (elicit.go), sampling (sampling.go)
// and roots (roots.go), each declared only when the host gave it (or, for
// the first two, relays it: relay.go), so that a server never asks what
// the host cannot answer. schemas keeps the
// session's forms as the server wrote them.
func (p *Provider) newClient(opts *mcp.ClientOptions, schemas *sdkfix.Schemas) *mcp.Client {
	caps := p.hostCapabilities()
	if caps.Elicitation != nil {
		opts.ElicitationHandler = answering(p, telemetry.SpanElicit, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return p.elicit(ctx, req, schemas)
		})
		opts.ElicitationCompleteHandler = p.completed
	}
	if caps.Sampling != nil {
		opts.CreateMessageWithToolsHandler = answering(p, telemetry.SpanSample, p.sample)
	}
	opts.Capabilities = caps
	client := mcp.NewClient(&clientInfo, opts)
	if p.cfg.roots != nil {
		p.roots.install(client, *p.cfg.roots)
	}
	return client
}

// hostCapabilities are the capabilities the client declares: the
// extensions it speaks, and what the host answers.
func (p *Provider) hostCapabilities() *mcp.ClientCapabilities {
	caps := p.capabilities() // the extensions
	if p.cfg.elicit != nil || p.cfg.relay {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	if p.cfg.sampling != nil || p.cfg.relay {
		// Tools are supported; context from servers (includeContext) is
		// not, so sampling.context is not declared.
		caps.Sampling = &mcp.SamplingCapabilities{Tools: &mcp.SamplingToolsCapabilities{}}
	}
	if p.cfg.roots != nil {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	return caps
}

// answering wraps the handler of a server's request in the span "{name}
// {server}" (elicit, sample), which ends with the answer.
func answering[Req, Res any](p *Provider, name string, h func(context.Context, Req) (Res, error)) func(context.Context, Req) (Res, error) {
	if p.tel == nil {
		return h
	}
	return func(ctx context.Context, req Req) (Res, error) {
		ctx, span := p.tel.Start(ctx, telemetry.Named(name, p.name), trace.SpanKindInternal, p.tel.server)
		res, err := h(ctx, req)
		telemetry.End(span, err)
		return res, err
	}
}

// checkHost refuses what the host would answer a server with and cannot:
// roots that are not file:// URIs, sampling without a model or with a
// bound lifted that protects the host.
func (c *config) checkHost(bad func(option string, err error) error) error {
	if c.roots != nil {
		if err := checkRoots(*c.roots); err != nil {
			return bad("roots", err)
		}
	}
	if c.sampling != nil {
		if err := c.sampling.check(); err != nil {
			return bad("sampling", err)
		}
	}
	return nil
}
