package mcptool

import (
	"bytes"
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
