package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The answers the gateway holds for a client are bounded in bytes
// ([Limits] ResultBytes and ResultBytesPerClient): a result of megabytes
// waits in its client's lane (lanes.go) until the client takes it, and a
// client that does not read would otherwise hold as many as its requests
// can ask for, long after each request has given back its slot (a
// session's call does, when its handler returns, before its answer is
// written). Each lane counts what it holds, from the moment something is
// written to it until it is written to the connection or the lane ends;
// an answer that would pass a bound is refused in its place, and so is a
// request of a client whose own answers are past its bound already.

// resultBudget is the budget of answers not yet taken of l.
func resultBudget(l Limits) *budget {
	return &budget{total: l.ResultBytes, perClient: l.ResultBytesPerClient,
		what: "answers not yet read", bounds: [2]string{"ResultBytes", "ResultBytesPerClient"}}
}

// room refuses an answer of n bytes to client that would pass a bound of
// the answers held, with [CodeRateLimited] naming it; n 0 asks whether the
// client is past its bound already.
func (g *Gateway) room(client string, n int64) error {
	g.results.mu.Lock()
	f := g.results.fits(client, max(n, 1))
	g.results.mu.Unlock()
	if f == nil {
		return nil
	}
	return &jsonrpc.Error{Code: CodeRateLimited, Message: f.msg + ": read the answers in flight, or retry once they are"}
}
