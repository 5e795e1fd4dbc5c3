package mcpclient

import (
	"context"
	"math"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/tool"
)

// progress follows the calls in flight that asked for progress, by
// progress token: a number, which costs a call less than a string.
type progress struct {
	mu    sync.Mutex
	next  int64
	calls map[int64]tracked // by token
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
func (pr *progress) track(extend func(), report func(tool.Progress)) (token int64) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.next++
	if pr.calls == nil {
		pr.calls = map[int64]tracked{}
	}
	pr.calls[pr.next] = tracked{extend, report}
	return pr.next
}

// forget forgets the call of token.
func (pr *progress) forget(token int64) {
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
	var token int64
	switch v := req.Params.ProgressToken.(type) {
	case float64: // as go-sdk decodes a number
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return
		}
		token = int64(v)
	case int64:
		token = v
	default:
		return
	}
	pr.mu.Lock()
	c, ok := pr.calls[token]
	pr.mu.Unlock()
	if !ok {
		return
	}
	c.extend()
	if c.report != nil {
		c.report(tool.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}
