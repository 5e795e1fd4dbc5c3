// Package browsertest drives a real browser for the tests that need one:
// Debian's chromium, headless, one per test binary, shared by its tests,
// each of which gets a tab of its own. `make deps` (and so CI) installs
// chromium; a test run without it fails saying so.
//
// The browser reaches nothing but loopback: the flags below keep it from
// calling home (background networking, component updates, sync, QUIC),
// which on a closed network would only fail, many at a time.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Timeout bounds what one test waits for in its tab: every wait is on a
// condition in the page, so this is only the bound of a test gone wrong.
const Timeout = 60 * time.Second

var shared struct {
	once    sync.Once
	err     error
	dir     string
	browser context.Context
	stop    func()
}

// Tab returns the context of a new tab of the binary's browser, started
// on first use, closed at the end of t; what the page logs to its console
// goes to t's log. Its deadline is [Timeout].
func Tab(t testing.TB) context.Context {
	t.Helper()
	shared.once.Do(start)
	if shared.err != nil {
		t.Fatalf("browser: %v", shared.err)
	}
	ctx, cancel := chromedp.NewContext(shared.browser, chromedp.WithListener(consoleTo(t)))
	ctx, cancelTime := context.WithTimeout(ctx, Timeout)
	if err := chromedp.Do(ctx); err != nil {
		cancelTime()
		cancel()
		t.Fatalf("browser: a new tab: %v", err)
	}
	t.Cleanup(func() {
		cancelTime()
		cancel()
	})
	return ctx
}

// Frame returns the context of the iframe of tab whose URL holds part, once
// there is one. Chrome runs a sandboxed frame in a process of its own, a
// target apart from its page's, which the page's DOM does not reach.
func Frame(t testing.TB, tab context.Context, part string) context.Context {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		infos, err := chromedp.Targets(tab)
		if err != nil {
			t.Fatalf("browser: no frame with %q in its URL runs apart from its page (a frame of the page's own origin would not): %v", part, err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && strings.Contains(info.URL, part) {
				ctx, cancel := chromedp.NewContext(tab, chromedp.WithTargetID(info.TargetID), chromedp.WithListener(consoleTo(t)))
				if err := chromedp.Do(ctx); err != nil {
					cancel()
					t.Fatalf("browser: attaching to the frame %s: %v", info.URL, err)
				}
				t.Cleanup(cancel)
				return ctx
			}
		}
		select {
		case <-tab.Done():
			t.Fatalf("browser: no frame with %q in its URL runs apart from its page (a frame of the page's own origin would not): %v", part, tab.Err())
		case <-tick.C:
		}
	}
}

// consoleTo returns a listener that logs what a page writes on its
// console to t, until t's cleanup.
func consoleTo(t testing.TB) func(any) {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
	})
	return func(ev any) {
		e, ok := ev.(*runtime.EventConsoleAPICalled)
		if !ok {
			return
		}
		var args []string
		for _, a := range e.Args {
			args = append(args, strings.Trim(string(a.Value), `"`)+a.Description)
		}
		mu.Lock()
		defer mu.Unlock()
		if !done {
			t.Logf("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	}
}

// start starts the browser.
func start() {
	path, err := exec.LookPath("chromium")
	if err != nil {
		shared.err = fmt.Errorf("chromium is not installed: make deps installs it (apt-get install chromium): %w", err)
		return
	}
	shared.dir, err = os.MkdirTemp("", "browsertest")
	if err != nil {
		shared.err = err
		return
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(shared.dir),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(900, 700),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	if err := chromedp.Do(browser); err != nil {
		cancelBrowser()
		cancelAlloc()
		shared.err = fmt.Errorf("starting %s: %w", path, err)
		return
	}
	shared.browser = browser
	shared.stop = func() {
		chromedp.Cancel(browser)
		cancelBrowser()
		cancelAlloc()
	}
}

// Close stops the binary's browser, if it started, and removes its
// profile: TestMain calls it after the tests ran, before it looks for
// goroutines left behind.
func Close() {
	if shared.stop != nil {
		shared.stop()
		shared.stop = nil
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// Wait returns the value of the JavaScript expression expr in ctx (a tab
// or a frame) once it is truthy, evaluating it again each 20 ms: a test
// waits on what the page shows, never on time.
func Wait[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Poll[T](expr, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(0)))
	if err != nil {
		t.Fatalf("browser: waiting for %s: %v", expr, err)
	}
	return v
}

// Do runs actions in ctx, failing t on an error.
func Do(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}
