package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
	"github.com/mcpbridge/mcpbridge/internal/stdio"
	"github.com/mcpbridge/mcpbridge/internal/streamable"
)

// A dialer is where a provider's server is: a URL, a command (stdio set),
// a transport the caller built, or a server in this process.
type dialer struct {
	url     string
	stdio   bool
	command string
	args    []string
	custom  mcp.Transport
	server  *mcp.Server
}

// transport builds the go-sdk transport the settings describe, or a
// ConfigError naming the setting at fault. An HTTP transport's client shows
// schemas the listings it receives, and every request goes through the
// exchange returned (nil for any other transport).
func (p *Provider) transport(schemas *sdkfix.Schemas) (mcp.Transport, *exchange, error) {
	c, d := &p.cfg, &p.dialer
	if d.custom != nil || d.server != nil {
		if len(c.env) > 0 || c.dir != "" || len(c.headers) > 0 || c.httpClient != nil || c.transport != "" {
			return nil, nil, &ConfigError{Server: p.name, Option: "transport", Err: errors.New("a given transport or server takes no URL, command, header or HTTP client options")}
		}
		if d.server != nil {
			return inProcess{d.server}, nil, nil
		}
		return d.custom, nil, nil
	}
	if d.stdio || d.url == "" && c.transport == Stdio {
		if d.command == "" {
			return nil, nil, &ConfigError{Server: p.name, Option: "command", Err: errors.New("empty command")}
		}
		if c.transport != "" && c.transport != Stdio {
			return nil, nil, &ConfigError{Server: p.name, Option: "transport", Err: fmt.Errorf("%q needs a URL; a command speaks stdio", c.transport)}
		}
		if c.oauth != nil {
			return nil, nil, &ConfigError{Server: p.name, Option: "oauth", Err: errors.New("a command (stdio) server takes no OAuth; pass credentials with WithEnv")}
		}
		return &stdio.Command{
			Path:          d.command,
			Args:          d.args,
			Env:           c.env,
			Dir:           c.dir,
			Stderr:        c.stderr,
			Secrets:       p.secrets,
			MaxLineLength: c.maxMessageSize(),
			Logger:        c.logger,
		}, nil, nil
	}
	u, err := url.Parse(d.url)
	if err != nil {
		return nil, nil, &ConfigError{Server: p.name, Option: "url", Err: errors.New("not a URL: " + wantURL)}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, nil, &ConfigError{Server: p.name, Option: "url", Err: fmt.Errorf("scheme %q: %s", u.Scheme, wantURL)}
	}
	if len(c.env) > 0 || c.dir != "" {
		return nil, nil, &ConfigError{Server: p.name, Option: "env/dir", Err: errors.New("only a command (stdio) server has an environment and a working directory")}
	}
	switch t := c.transport; {
	case t == StreamableHTTP || t == "" && path.Base(u.Path) != "sse":
		client, x := p.httpClient(u, nil, false)
		return &streamable.Transport{Endpoint: d.url, Client: client, OAuth: c.oauth, InputSchema: p.inputSchema, Logger: c.logger}, x, nil
	case t == SSE || t == "":
		if c.oauth != nil {
			return nil, nil, &ConfigError{Server: p.name, Option: "oauth", Err: errors.New("the legacy SSE transport cannot run an OAuth flow; use streamable HTTP")}
		}
		// go-sdk's own cap on an event is off: the client's tap bounds
		// every message, where go-sdk's cap would end the connection.
		client, x := p.httpClient(u, schemas, true)
		return sdkfix.Detach(&mcp.SSEClientTransport{Endpoint: d.url, HTTPClient: client, MaxEventSize: -1}), x, nil
	default:
		return nil, nil, &ConfigError{Server: p.name, Option: "transport", Err: fmt.Errorf("%q is not one of %q, %q", t, StreamableHTTP, SSE)}
	}
}

// inputSchema is the input schema of the tool name as the current session
// listed it, whose x-mcp-header arguments a call sends in headers too
// (streamable HTTP, 2026-07-28); nil for a tool not listed.
func (p *Provider) inputSchema(name string) json.RawMessage {
	s := p.conn.current()
	if s == nil {
		return nil
	}
	if lt := s.catalog().listed[name]; lt != nil {
		return lt.def.InputSchema
	}
	return nil
}

// pathless reports whether the dialer's URL has no path: a server's
// endpoint is seldom its root.
func (d dialer) pathless() bool {
	u, err := url.Parse(d.url)
	return d.url != "" && err == nil && strings.TrimPrefix(u.Path, "/") == ""
}

// pathNote is what a connection to a URL without a path that the server
// refused adds.
const pathNote = "the URL has no path; an MCP server is most often at /mcp (streamable HTTP) or /sse (SSE)"

// wantURL says what a server's URL needs, with one to copy.
const wantURL = "want http or https and a host, as in http://127.0.0.1:3001"

// inProcess connects to a server in this process over a new in-memory
// pair. The server's session ends when the client's side closes.
type inProcess struct{ server *mcp.Server }

func (t inProcess) Connect(ctx context.Context) (mcp.Connection, error) {
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := t.server.Connect(ctx, serverSide, nil); err != nil {
		return nil, err
	}
	return clientSide.Connect(ctx)
}
