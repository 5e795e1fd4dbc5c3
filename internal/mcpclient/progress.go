package mcpclient

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/tool"
)

// progress follows the calls in flight that asked for progress, by
// progress token.
type progress struct {
	mu    sync.Mutex
	next  int64
	calls map[string]tracked // by token
}

// A tracked call is told of its progress: extend restarts its timeout,
// report (if not nil) hands the progress to the host.
type tracked struct {
	extend func()
	report func(tool.Progress)
}

// track returns a new progress token for a call whose timeout extend
// restarts and whose progress goes to report; forget forgets it when the
// call is over.
func (pr *progress) track(extend func(), report func(tool.Progress)) (token string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.next++
	token = "mcpbridge-" + strconv.FormatInt(pr.next, 10)
	if pr.calls == nil {
		pr.calls = map[string]tracked{}
	}
	pr.calls[token] = tracked{extend, report}
	return token
}

// forget forgets the call of token.
func (pr *progress) forget(token string) {
	pr.mu.Lock()
	delete(pr.calls, token)
	pr.mu.Unlock()
}

// progressed restarts the timeout of the call a progress notification is
// about and reports it. go-sdk calls it for one notification at a time.
func (pr *progress) progressed(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	pr.mu.Lock()
	c, ok := pr.calls[fmt.Sprint(req.Params.ProgressToken)]
	pr.mu.Unlock()
	if !ok {
		return
	}
	c.extend()
	if c.report != nil {
		c.report(tool.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}
