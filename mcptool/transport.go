package mcptool

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"reflect"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport builds the go-sdk transport the settings describe, or a
// ConfigError naming the setting at fault. An HTTP transport's client shows
// keeper the listings it receives.
func (p *Provider) transport(keeper *schemaKeeper) (mcp.Transport, error) {
	c := &p.cfg
	if p.custom != nil {
		if len(c.env) > 0 || c.dir != "" || len(c.headers) > 0 || c.httpClient != nil || c.transport != "" {
			return nil, &ConfigError{Server: p.name, Option: "transport", Err: errors.New("a given transport takes no URL, command, header or HTTP client options")}
		}
		return p.custom, nil
	}
	if c.maxMessageSize == 0 {
		return nil, &ConfigError{Server: p.name, Option: "max message size", Err: errors.New("must not be zero")}
	}
	if p.command != "" || p.url == "" && c.transport == Stdio {
		if p.command == "" {
			return nil, &ConfigError{Server: p.name, Option: "command", Err: errors.New("empty command")}
		}
		if c.transport != "" && c.transport != Stdio {
			return nil, &ConfigError{Server: p.name, Option: "transport", Err: fmt.Errorf("%q needs a URL; a command speaks stdio", c.transport)}
		}
		if c.oauth != nil {
			return nil, &ConfigError{Server: p.name, Option: "oauth", Err: errors.New("a command (stdio) server takes no OAuth; pass credentials with WithEnv")}
		}
		stderr := c.stderr
		if stderr == nil {
			stderr = os.Stderr
		}
		return &stdio.Command{
			Path:          p.command,
			Args:          p.args,
			Env:           c.env,
			Dir:           c.dir,
			Stderr:        stderr,
			MaxLineLength: c.maxMessageSize,
			Logger:        c.logger,
		}, nil
	}
	u, err := url.Parse(p.url)
	if err != nil {
		return nil, &ConfigError{Server: p.name, Option: "url", Err: errors.New("not a URL")}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, &ConfigError{Server: p.name, Option: "url", Err: fmt.Errorf("scheme %q: want http or https with a host", u.Scheme)}
	}
	if len(c.env) > 0 || c.dir != "" {
		return nil, &ConfigError{Server: p.name, Option: "env/dir", Err: errors.New("only a command (stdio) server has an environment and a working directory")}
	}
	// go-sdk's own cap on an event is off: the client's exchange bounds
	// every message, where go-sdk's cap would end the connection.
	client := p.httpClient(u, keeper)
	switch t := c.transport; {
	case t == StreamableHTTP || t == "" && path.Base(u.Path) != "sse":
		return &mcp.StreamableClientTransport{Endpoint: p.url, HTTPClient: client, OAuthHandler: c.oauth, MaxEventSize: -1}, nil
	case t == SSE || t == "":
		if c.oauth != nil {
			return nil, &ConfigError{Server: p.name, Option: "oauth", Err: errors.New("the legacy SSE transport cannot run an OAuth flow; use streamable HTTP")}
		}
		return &detached{&mcp.SSEClientTransport{Endpoint: p.url, HTTPClient: client, MaxEventSize: -1}}, nil
	default:
		return nil, &ConfigError{Server: p.name, Option: "transport", Err: fmt.Errorf("%q is not one of %q, %q", t, StreamableHTTP, SSE)}
	}
}

// detached gives a transport whose connection lives on the context passed to
// Connect (go-sdk's SSE client ties its event stream to it) a context that
// lives until the connection is closed, while Connect itself still honours
// the caller's deadline.
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

// capture remembers the connection its transport made, so that a connection
// go-sdk leaves open when its handshake fails half-way is closed all the same.
// A connection that can be wrapped ([wrappable]) goes to go-sdk with keeper
// reading it and the raw results of calls kept ([rawCatch]).
type capture struct {
	mcp.Transport
	mu     sync.Mutex
	conn   mcp.Connection
	keeper *schemaKeeper
}

func (c *capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	if err != nil {
		return conn, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn = conn
	if !wrappable(conn) {
		return conn, nil
	}
	return c.keeper.conn(conn), nil
}

// wrappable reports whether conn may go to go-sdk behind a wrapper: ours, or
// go-sdk's stream connection (in-memory, io and command transports), which
// has no method go-sdk looks for on a client's connection. Any other may
// (the streamable client's does), and a wrapper would hide it.
func wrappable(conn mcp.Connection) bool {
	if _, ours := conn.(*stdio.Conn); ours {
		return true
	}
	return reflect.TypeOf(conn).String() == "*mcp.ioConn"
}

func (c *capture) connection() mcp.Connection {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conn
}

func (c *capture) close() {
	if conn := c.connection(); conn != nil {
		conn.Close()
	}
}
