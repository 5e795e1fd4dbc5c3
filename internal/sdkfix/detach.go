package sdkfix

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Detach returns t with its connection kept alive past the context given to
// Connect, which still bounds the connecting. go-sdk's SSE client transport
// (mcp.SSEClientTransport) makes its event stream, which carries every
// answer, with the context passed to Connect: when a connect deadline's
// context ends, so does the connection. The connection made lives on a
// context of its own, until it is closed.
func Detach(t mcp.Transport) mcp.Transport { return &detached{t} }

type detached struct{ inner mcp.Transport }

func (d *detached) Connect(ctx context.Context) (mcp.Connection, error) {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	type result struct {
		conn mcp.Connection
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, err := d.inner.Connect(life)
		done <- result{conn, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			cancel()
			return nil, r.err
		}
		return &cancelOnClose{Connection: r.conn, cancel: cancel}, nil
	case <-ctx.Done():
		cancel()
		if r := <-done; r.conn != nil {
			r.conn.Close()
		}
		return nil, ctx.Err()
	}
}

type cancelOnClose struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
