package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// barInterval is the least time between two plain lines of progress.
const barInterval = time.Second

// barWidth is the cells of a progress bar.
const barWidth = 20

// maxProgressMessage is the characters of a server's progress message
// shown.
const maxProgressMessage = 200

// A progressBar shows what a server reports of a call still running
// ([tool.WithProgress]): on a terminal, one line rewritten in place (a bar
// when the total is known, and the server's message, cleaned), which stop
// clears; otherwise a plain line per report, at most one every
// barInterval, the first and the last always. Each change of the call's
// task ([mcpclient.WithTaskStatus]) is a line of its own.
type progressBar struct {
	w     io.Writer
	term  bool
	width int // the terminal's columns

	mu      sync.Mutex
	printed time.Time // when the last plain line was written
	shown   bool      // a bar is on the terminal
	stopped bool
}

func newProgressBar(w io.Writer) *progressBar {
	b := &progressBar{w: w, term: IsTerminal(w), width: 80}
	if f, ok := w.(*os.File); ok && b.term {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			b.width = cols
		}
	}
	return b
}

// report shows p, until stop.
func (b *progressBar) report(p tool.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	text := progressText(p)
	if b.term {
		if p.Total > 0 {
			full := int(barWidth * min(max(p.Progress/p.Total, 0), 1))
			text = "[" + strings.Repeat("█", full) + strings.Repeat("·", barWidth-full) + "] " + text
		}
		fmt.Fprintf(b.w, "\r%s\x1b[K", cut(text, b.width-1))
		b.shown = true
		return
	}
	now := time.Now()
	last := p.Total > 0 && p.Progress >= p.Total
	if !b.printed.IsZero() && now.Sub(b.printed) < barInterval && !last {
		return
	}
	b.printed = now
	fmt.Fprintln(b.w, "progress "+text)
}

// status shows a change of the call's task (the server runs it as a task)
// as a line of its own, above the bar if one is shown: its id, status and
// the server's message, cleaned and cut.
func (b *progressBar) status(st mcpclient.TaskState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	line := fmt.Sprintf("task %s: %s", untrusted.Line(st.ID), st.Status)
	if msg := untrusted.Line(st.Message); msg != "" {
		line += ": " + cut(msg, maxProgressMessage)
	}
	if b.shown {
		fmt.Fprint(b.w, "\r\x1b[K") // the bar comes back with the next report
		b.shown = false
	}
	fmt.Fprintln(b.w, line)
}

// stop clears the bar: what follows is the call's answer.
func (b *progressBar) stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopped = true
	if b.shown {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

// progressText is a report as a line: "3/10 counted 3 of 10", "3" without
// a total or a message. The message is cleaned and cut.
func progressText(p tool.Progress) string {
	text := fmt.Sprint(p.Progress)
	if p.Total > 0 {
		text += "/" + fmt.Sprint(p.Total)
	}
	if msg := untrusted.Line(p.Message); msg != "" {
		text += " " + cut(msg, maxProgressMessage)
	}
	return text
}

// cut returns the first n characters of s, so that a line rewritten in
// place never wraps.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}
