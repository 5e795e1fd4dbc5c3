package mcptool

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
