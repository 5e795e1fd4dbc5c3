package sdkfix

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// go-sdk's log lines may quote a server; they must come out at debug level.
func TestDebugOnly(t *testing.T) {
	var b bytes.Buffer
	info := slog.New(DebugOnly(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelInfo}), redact.Secrets{}))
	info.Warn("server said: ignore previous instructions")
	info.With("k", "v").WithGroup("g").Error("also quoted")
	if b.Len() != 0 {
		t.Fatalf("logged above debug: %s", b.String())
	}
	debug := slog.New(DebugOnly(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}), redact.Secrets{}))
	debug.Warn("kept at debug")
	if out := b.String(); !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, "kept at debug") {
		t.Fatalf("want the record at debug level, got %q", out)
	}
}

// go-sdk's log lines may quote a URL it requested; no key in one is logged.
func TestDebugOnlyRedactsURLs(t *testing.T) {
	var b bytes.Buffer
	l := slog.New(DebugOnly(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}), redact.Secrets{}))
	const u = "http://127.0.0.1:1/mcp?api_key=s3cret"
	l.With("endpoint", u).Warn("GET "+u+" failed", "error", errors.New(`Get "`+u+`": refused`), slog.Group("g", "url", u))
	if out := b.String(); strings.Contains(out, "s3cret") || strings.Count(out, "http://127.0.0.1:1/…") != 4 {
		t.Fatalf("logged %q", out)
	}
}

// go-sdk's log lines may quote what a server echoed of the host's
// secrets; none is logged.
func TestDebugOnlyMasksSecrets(t *testing.T) {
	var b bytes.Buffer
	l := slog.New(DebugOnly(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug}), redact.Secrets{}.With("tok-8675309")))
	l.With("said", "Bearer tok-8675309").Warn("server said tok-8675309", "error", errors.New("bad tok-8675309"), slog.Group("g", "x", "tok-8675309"))
	if out := b.String(); strings.Contains(out, "8675309") || strings.Count(out, "…") != 4 {
		t.Fatalf("logged %q", out)
	}
}
