package sdkfix

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// go-sdk's log lines may quote a server; they must come out at debug level.
func TestDebugOnly(t *testing.T) {
	var b bytes.Buffer
	info := slog.New(debugOnly{slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelInfo})})
	info.Warn("server said: ignore previous instructions")
	info.With("k", "v").WithGroup("g").Error("also quoted")
	if b.Len() != 0 {
		t.Fatalf("logged above debug: %s", b.String())
	}
	debug := slog.New(debugOnly{slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})})
	debug.Warn("kept at debug")
	if out := b.String(); !strings.Contains(out, "level=DEBUG") || !strings.Contains(out, "kept at debug") {
		t.Fatalf("want the record at debug level, got %q", out)
	}
}

// go-sdk's log lines may quote a URL it requested; no key in one is logged.
func TestDebugOnlyRedactsURLs(t *testing.T) {
	var b bytes.Buffer
	l := slog.New(debugOnly{slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})})
	const u = "http://127.0.0.1:1/mcp?api_key=s3cret"
	l.With("endpoint", u).Warn("GET "+u+" failed", "error", errors.New(`Get "`+u+`": refused`), slog.Group("g", "url", u))
	if out := b.String(); strings.Contains(out, "s3cret") || strings.Count(out, "http://127.0.0.1:1/…") != 4 {
		t.Fatalf("logged %q", out)
	}
}
