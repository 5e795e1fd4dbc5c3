package sdkfix

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/idscan"
)

// A Sent learns the JSON-RPC id under which go-sdk sent one request, which
// telemetry records (jsonrpc.request.id). go-sdk numbers its requests in
// its JSON-RPC layer, below any middleware, and shows the number to no one.
//
// A Sent rides in the context of the request, as a [Catch] does, and what
// sees the raw messages fills it: a connection [Capture] wraps, and
// [HTTPTap] from the body of the POST that carries the request. Over any
// other transport it stays empty. A request go-sdk sends again (a
// multi-round-trip call) leaves the last id.
type Sent struct {
	mu sync.Mutex
	id jsonrpc.ID
}

// WithSent returns ctx carrying a new Sent, for the request sent with it.
func WithSent(ctx context.Context) (context.Context, *Sent) { return ride(ctx, sentKey) }

var sentKey = ctxkey.New[*Sent]("sdkfix sent")

func sentOf(ctx context.Context) *Sent { return sentKey.Value(ctx) }

// ID returns the id the request went out with, if it was seen.
func (s *Sent) ID() (jsonrpc.ID, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id, s.id.IsValid()
}

func (s *Sent) set(id jsonrpc.ID) {
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
}

// sentHead bounds how much of a POST's body is read for the request's id:
// go-sdk writes "jsonrpc", then "id", first.
const sentHead = 256

// post reads the id of the request a POST carries from the head of its
// body, which the request can give again (go-sdk's do).
func (s *Sent) post(req *http.Request) {
	if req.GetBody == nil {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	head := make([]byte, sentHead)
	n, _ := io.ReadFull(body, head)
	var sc idscan.Scanner
	sc.Feed(head[:n])
	if id, ok, _ := sc.Result(); ok {
		s.set(id)
	}
}
