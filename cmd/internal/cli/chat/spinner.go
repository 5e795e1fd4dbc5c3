package chat

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpbridge/mcpbridge/cmd/internal/cli"
)

// spinner shows that the program is waiting, on a terminal only.
type spinner struct {
	stopOnce sync.Once
	quit     chan struct{}
	done     chan struct{}
}

// spin starts a spinner with a label on w if w is a terminal; stop it before
// writing anything else to w.
func spin(w io.Writer, label string) *spinner {
	s := &spinner{quit: make(chan struct{}), done: make(chan struct{})}
	if !cli.IsTerminal(w) {
		close(s.done)
		return s
	}
	go func() {
		defer close(s.done)
		frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(w, "\r%c %s", frames[i%len(frames)], label)
			select {
			case <-s.quit:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *spinner) stop() {
	s.stopOnce.Do(func() { close(s.quit) })
	<-s.done
}
