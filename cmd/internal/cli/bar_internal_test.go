package cli

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Off a terminal, progress is a plain line a report, at most one a second
// but the first and the last, and nothing once the call is over.
func TestProgressLinesRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		b := newProgressBar(&out)
		for i, wait := range []time.Duration{0, 100 * time.Millisecond, 950 * time.Millisecond, 10 * time.Millisecond, 0} {
			time.Sleep(wait)
			b.report(tool.Progress{Progress: float64(i + 1), Total: 5, Message: "step\x1b[2J"})
		}
		b.stop()
		b.report(tool.Progress{Progress: 6, Message: "late"})
		want := "progress 1/5 step\nprogress 3/5 step\nprogress 5/5 step\n"
		if got := out.String(); got != want {
			t.Errorf("lines:\n%s\nwant:\n%s", got, want)
		}
	})
}

func TestProgressText(t *testing.T) {
	for _, tc := range []struct {
		p    tool.Progress
		want string
	}{
		{tool.Progress{Progress: 3}, "3"},
		{tool.Progress{Progress: 0.5, Total: 1, Message: "half"}, "0.5/1 half"},
		{tool.Progress{Progress: 1, Message: strings.Repeat("a", 1000)}, "1 " + strings.Repeat("a", maxProgressMessage-1) + "…"},
	} {
		if got := progressText(tc.p); got != tc.want {
			t.Errorf("progressText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := cut("abcdef", 4); got != "abc…" {
		t.Errorf("cut = %q", got)
	}
}

// A change of the call's task is a line of its own, cleaned, which clears
// a bar shown on a terminal first; nothing once the call is over.
func TestTaskStatusLines(t *testing.T) {
	var out bytes.Buffer
	b := &progressBar{w: &out, term: true, width: 80}
	b.report(tool.Progress{Progress: 1, Total: 2})
	b.status(mcpclient.TaskState{ID: "t\x1b[2J1", Status: mcpclient.TaskInputRequired, Message: "which\x1b[31m tag?"})
	b.stop()
	b.status(mcpclient.TaskState{ID: "t1", Status: mcpclient.TaskCompleted})
	want := "\r[██████████··········] 1/2\x1b[K\r\x1b[Ktask t1: input_required: which tag?\n"
	if got := out.String(); got != want {
		t.Errorf("terminal %q\nwant     %q", got, want)
	}
}
