package mcpclient

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Notices are functions called with what a server tells its client unasked,
// beyond the tool listing the provider follows itself: for a host that
// passes the server's resources, prompts and log on (package gateway). A
// nil function ignores its notice. Each is called on the connection's
// reading goroutine, one notice at a time, and must not block.
type Notices struct {
	// Log receives each notifications/message the server sends. A server
	// may send none until it is asked for a level (logging/setLevel, which
	// [Provider.Request] sends).
	Log func(context.Context, *mcp.LoggingMessageParams)
	// ResourcesChanged is called on notifications/resources/list_changed.
	ResourcesChanged func()
	// PromptsChanged is called on notifications/prompts/list_changed.
	PromptsChanged func()
	// ResourceUpdated receives each notifications/resources/updated.
	ResourceUpdated func(context.Context, *mcp.ResourceUpdatedNotificationParams)
	// LogLevel gives the level the host wants the server's log at, for a
	// server that speaks 2026-07-28: that protocol has no logging/setLevel,
	// so the level rides in each request's _meta, and a request without
	// one gets no log. Empty asks for none.
	LogLevel func() mcp.LoggingLevel
}

// WithNotices sets the functions the server's unasked notices reach. The
// zero Notices, the default, ignores them.
func WithNotices(n Notices) Option { return func(c *config) { c.notices = n } }

// set hands the notices to go-sdk's client options.
func (n Notices) set(o *mcp.ClientOptions) {
	if n.Log != nil {
		o.LoggingMessageHandler = func(ctx context.Context, r *mcp.LoggingMessageRequest) { n.Log(ctx, r.Params) }
	}
	if n.ResourcesChanged != nil {
		o.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { n.ResourcesChanged() }
	}
	if n.PromptsChanged != nil {
		o.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { n.PromptsChanged() }
	}
	if n.ResourceUpdated != nil {
		o.ResourceUpdatedHandler = func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) { n.ResourceUpdated(ctx, r.Params) }
	}
}

// askLevel makes client send the level n.LogLevel gives in the _meta of
// each 2026-07-28 request (go-sdk has put the protocol version there).
func (n Notices) askLevel(client *mcp.Client) {
	if n.LogLevel != nil {
		client.AddSendingMiddleware(n.level)
	}
}

// level is the sending middleware askLevel adds: it puts the level in the
// _meta of a request of 2026-07-28.
func (n Notices) level(next mcp.MethodHandler) mcp.MethodHandler {
	if n.LogLevel == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p := req.GetParams(); p != nil {
			if m := p.GetMeta(); m[mcp.MetaKeyProtocolVersion] != nil {
				if level := n.LogLevel(); level != "" {
					m[mcp.MetaKeyLogLevel] = level
				}
			}
		}
		return next(ctx, method, req)
	}
}
