// Package browsertest drives a real browser for the tests that need one:
// Debian's chromium, headless, one per test binary, shared by its tests,
// each of which gets a tab of its own. `make deps` (and so CI) installs
// chromium; a test run without it fails saying so.
//
// The browser reaches nothing but loopback: the flags below keep it from
// calling home (background networking, component updates, sync, QUIC),
// which on a closed network would only fail, many at a time, and from
// asking a DNS server anything (every name but localhost's is not found; addresses are not names),
// so that what a page tries to resolve stays on the machine, where
// [Resolved] sees it.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/tracing"
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

// A Page is a tab of the binary's browser, or a frame of one.
type Page struct {
	// Ctx is the tab's chromedp context: actions run in it act on the tab.
	Ctx   context.Context
	frame *chromedp.Node // the iframe element; nil: the tab's top document
}

// Tab returns a new tab of the binary's browser, started on first use,
// closed at the end of t; what the page logs to its console goes to t's
// log. Its deadline is [Timeout].
func Tab(t testing.TB) Page {
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
	return Page{Ctx: ctx}
}

// Frame returns the iframe of p whose src holds part, once there is one
// and its document is parsed.
func (p Page) Frame(t testing.TB, part string) Page {
	t.Helper()
	sel := fmt.Sprintf("iframe[src*=%q]", part)
	nodes, err := chromedp.Run(p.Ctx, chromedp.Nodes(sel))
	if err != nil || len(nodes) == 0 {
		t.Fatalf("browser: no %s: %v", sel, err)
	}
	f := Page{Ctx: p.Ctx, frame: nodes[0]}
	Wait[bool](t, f, fmt.Sprintf(`location.href.includes(%q) && document.readyState !== "loading"`, part))
	return f
}

// Wait returns the value of the JavaScript expression expr in p once it is
// truthy, evaluating it again each 20 ms: a test waits on what the page
// shows, never on time.
func Wait[T any](t testing.TB, p Page, expr string) T {
	t.Helper()
	opts := []chromedp.PollOption{chromedp.WithPollingInterval(20 * time.Millisecond), chromedp.WithPollingTimeout(0)}
	if p.frame != nil {
		opts = append(opts, chromedp.WithPollingInFrame(p.frame))
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := chromedp.Run(p.Ctx, chromedp.Poll[T](expr, opts...))
		if err == nil {
			return v
		}
		// A frame has no JavaScript context until it has a document, and
		// its first (about:blank) goes when its own loads.
		if p.frame == nil || !(strings.Contains(err.Error(), "executionContextId") || strings.Contains(err.Error(), "context was destroyed") || strings.Contains(err.Error(), "Cannot find context")) {
			t.Fatalf("browser: waiting for %s: %v", expr, err)
		}
		select {
		case <-p.Ctx.Done():
			t.Fatalf("browser: waiting for %s: %v", expr, p.Ctx.Err())
		case <-tick.C:
		}
	}
}

// Click clicks the element sel of p, as a user would.
func Click(t testing.TB, p Page, sel string) {
	t.Helper()
	var opts []chromedp.QueryOption
	if p.frame != nil {
		opts = append(opts, chromedp.FromNode(p.frame))
	}
	if err := chromedp.Do(p.Ctx, chromedp.Click(sel, opts...)); err != nil {
		t.Fatalf("browser: clicking %s: %v", sel, err)
	}
}

// Do runs actions in p's tab, failing t on an error.
func Do(t testing.TB, p Page, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(p.Ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// tracingMu lets one test at a time trace the browser, which has one trace.
var tracingMu sync.Mutex

// Resolved returns the host names the browser was asked to resolve, by
// any page or for any reason (a DNS prefetch, a preconnect, a request),
// while f ran, as its network log says them ("http://name.example"): it
// sees a lookup that sends nothing on the wire. The log is the browser's,
// read by tracing its "netlog" category for the time of f.
func Resolved(t testing.TB, p Page, f func()) []string {
	t.Helper()
	tracingMu.Lock()
	defer tracingMu.Unlock()
	var mu sync.Mutex
	var events []json.RawMessage
	finished := false // a listener lasts as long as the tab: one of an earlier call is done
	complete := make(chan struct{})
	// The browser's session, not the tab's: a tab's trace holds its
	// renderer's events alone, not the network service's.
	chromedp.ListenBrowser(p.Ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			defer mu.Unlock()
			if finished {
				return
			}
			for _, v := range e.Value {
				if data, err := v.MarshalJSON(); err == nil {
					events = append(events, data)
				}
			}
		case *tracing.EventTracingComplete:
			mu.Lock()
			defer mu.Unlock()
			if !finished {
				finished = true
				close(complete)
			}
		}
	})
	config := &tracing.TraceConfig{IncludedCategories: []string{"disabled-by-default-netlog", "netlog"}}
	if _, err := chromedp.CallBrowser(p.Ctx, tracing.Start, tracing.StartParams{TraceConfig: config, TransferMode: tracing.StartTransferModeReportEvents}); err != nil {
		t.Fatalf("browser: tracing: %v", err)
	}
	f()
	if _, err := chromedp.CallBrowser(p.Ctx, tracing.End, cdp.Empty{}); err != nil {
		t.Fatalf("browser: tracing: %v", err)
	}
	select {
	case <-complete:
	case <-p.Ctx.Done():
		t.Fatalf("browser: tracing: %v", p.Ctx.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	var hosts []string
	for _, data := range events {
		var ev struct {
			Args struct {
				Params struct {
					Host string `json:"host"`
				} `json:"params"`
			} `json:"args"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Args.Params.Host != "" {
			hosts = append(hosts, ev.Args.Params.Host)
		}
	}
	return hosts
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
		// A test serves HTTPS with a certificate of its own making
		// (certtest), on loopback.
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.*"),
		// A sandboxed frame stays in its page's process, where chromedp's
		// queries reach it: Blink keeps its origin opaque all the same.
		chromedp.Flag("disable-features", "IsolateSandboxedIframes"),
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
