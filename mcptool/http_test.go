package mcptool_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A key in the server's URL shows neither in the error of a connection that
// failed nor in the log, at any level.
func TestURLSecretsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there now
	var log syncBuffer
	p := mcptool.FromURL(base+"/mcp/path-s3cret?api_key=s3cret", mcptool.WithName("gone"),
		mcptool.WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	err := p.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), base+"/…") {
		t.Fatalf("got %v; want an error showing the URL redacted", err)
	}
	for what, text := range map[string]string{"the error": err.Error(), "the log": log.String()} {
		if strings.Contains(text, "s3cret") {
			t.Errorf("%s shows the secret: %s", what, text)
		}
	}
}
