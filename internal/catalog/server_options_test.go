package catalog_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
)

// WithServerOptions gives each server options of its own: here a stderr
// sink that gets that server's lines alone. A second WithServerOptions
// adds to the first (a gateway's to its command line's), which still
// applies.
func TestWithServerOptions(t *testing.T) {
	cfg := &config.Config{}
	for _, name := range []string{"a", "b"} {
		cfg.Servers = append(cfg.Servers, config.Server{Name: name, Command: "sh", Args: []string{"-c", "echo " + name + " >&2; exit 1"}})
	}
	sinks := map[string]*proctest.Buffer{"a": {}, "b": {}}
	ts, err := catalog.Start(context.Background(), cfg, catalog.WithServerOptions(func(sc config.Server) []mcpclient.Option {
		return []mcpclient.Option{mcpclient.WithStderr(sinks[sc.Name])}
	}), catalog.WithServerOptions(func(config.Server) []mcpclient.Option {
		return []mcpclient.Option{mcpclient.WithCallTimeout(time.Minute)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	ts.Close() // the servers failed; closed, their stderr is all read
	for name, sink := range sinks {
		if got := sink.String(); got != name+"\n" {
			t.Errorf("server %s's stderr sink got %q", name, got)
		}
	}
}
