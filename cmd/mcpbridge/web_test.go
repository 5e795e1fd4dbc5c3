package main_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpbridge/mcpbridge/internal/testing/browsertest"
	"github.com/mcpbridge/mcpbridge/internal/testing/certtest"
	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// noModel is the environment with no model configured.
var noModel = []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "ANTHROPIC_API_KEY="}

// startWeb starts "mcpbridge web" with env and args, stopped with Ctrl-C
// at the end of t, and returns the address it printed: the page's base URL
// and the run's secret.
func startWeb(t *testing.T, env []string, args ...string) (base, secret string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"web"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1", "MCPBRIDGE_CONFIG_DIR="+t.TempDir()), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Errorf("mcpbridge web ended with %d on Ctrl-C, want 130\n%s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("mcpbridge web did not end on Ctrl-C")
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go io.Copy(io.Discard, stdout)
	u, perr := url.Parse(strings.TrimSpace(line))
	if err != nil || perr != nil || u.Fragment == "" || u.Host == "" {
		t.Fatalf("mcpbridge web printed %q (%v)\n%s", line, err, stderr.String())
	}
	return u.Scheme + "://" + u.Host, u.Fragment
}

// Only the page opened at the printed address, which has the run's secret,
// drives the chat and the apps' host; the page itself is served to anyone,
// under a policy of its own.
func TestWebNeedsItsSecret(t *testing.T) {
	base, secret := startWeb(t, append(noModel, ownCache(t)...))
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	do := func(method, path, auth string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(`{"server":"demo","tool":"notes_board","text":"hi"}`))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	for _, r := range []struct{ method, path string }{{"GET", "/api/info"}, {"POST", "/api/chat"}, {"GET", "/api/conversation?id=x"}, {"POST", "/apps/open"}} {
		for _, auth := range []string{"", secret[:len(secret)-1] + "x"} {
			if code, body := do(r.method, r.path, auth); code != http.StatusUnauthorized || !strings.Contains(body, "open the address mcpbridge web printed") {
				t.Errorf("%s %s with %q: %d %s", r.method, r.path, auth, code, body)
			}
		}
	}
	if code, body := do("GET", "/api/info", secret); code != http.StatusOK || !strings.Contains(body, `"noModel":"no model configured: set OPENAI_API_KEY`) {
		t.Errorf("info: %d %s", code, body)
	}
	if code, body := do("POST", "/api/chat", secret); code != http.StatusServiceUnavailable || !strings.Contains(body, "no model configured") {
		t.Errorf("a turn without a model: %d %s", code, body)
	}
	res, err := client.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("the page's policy: %q", csp)
	}
}

// web on an address that is not loopback is refused, before any server
// starts, unless it serves HTTPS and is named: in clear the run's secret
// and all the page shows would cross the network.
func TestWebRefusesToServeInClear(t *testing.T) {
	expect(t, mcpbridge(t, t.TempDir(), "", noModel, "web", "--http", "0.0.0.0:0"), 2,
		"--http 0.0.0.0:0 is not a loopback address", "in clear", "--tls-cert FILE --tls-key FILE", "--allow-host HOST")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	certtest.Write(t, "web", cert, key)
	expect(t, mcpbridge(t, t.TempDir(), "", noModel, "web", "--http", ":0", "--tls-cert", cert, "--tls-key", key), 2,
		"--http :0 (every interface) is not a loopback address: name the page with --allow-host HOST")
}

// web --tls-cert --tls-key --allow-host serves its page over HTTPS by the
// name given, which the printed address carries; the chat's API and the
// apps answer that name alone, not the address's own.
func TestBrowserWebOverTLS(t *testing.T) {
	cache := ownCache(t)
	expect(t, mcpbridge(t, t.TempDir(), "", cache, "call", "add_note", `{"title":"milk","body":"buy milk"}`), 0, "added note #1")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	certtest.Write(t, "web", cert, key)
	base, secret := startWeb(t, append(noModel, cache...), "--tls-cert", cert, "--tls-key", key, "--allow-host", "web.localhost")
	if !strings.HasPrefix(base, "https://web.localhost:") {
		t.Fatalf("the page's address: %s", base)
	}
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(base+"/app?tool=notes_board&args=%7B%7D#"+secret))
	frame := tab.Frame(t, "/apps/frame/")
	browsertest.Wait[bool](t, frame, `document.querySelector("#board .card h3")?.textContent === "#1 milk"`)

	byAddress := strings.Replace(base, "web.localhost", "127.0.0.1", 1)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}}
	for _, path := range []string{"/", "/api/info", "/apps/host.js"} {
		req, _ := http.NewRequest(http.MethodGet, byAddress+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `Host \"127.0.0.1:`) {
			t.Errorf("GET %s by the address: %d %s", path, res.StatusCode, body)
		}
	}
}

// Without a model the page says what to set, and /app renders a tool's
// app, the host calling the tool.
func TestBrowserWebAppWithoutModel(t *testing.T) {
	cache := ownCache(t)
	expect(t, mcpbridge(t, t.TempDir(), "", cache, "call", "add_note", `{"title":"milk","body":"buy milk"}`), 0, "added note #1")
	base, secret := startWeb(t, append(noModel, cache...))
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(base+"/#"+secret))
	notice := browsertest.Wait[string](t, tab, `!document.getElementById("notice").hidden && document.getElementById("notice").textContent`)
	for _, want := range []string{"no model configured: set OPENAI_API_KEY", "/app?tool=NAME&args=JSON", "tools with an app: notes_board"} {
		if !strings.Contains(notice, want) {
			t.Errorf("the notice lacks %q: %s", want, notice)
		}
	}
	browsertest.Do(t, tab, chromedp.Navigate(base+"/app?tool=notes_board&args=%7B%7D#"+secret))
	frame := tab.Frame(t, "/apps/frame/")
	browsertest.Wait[bool](t, frame, `document.querySelector("#board .card h3")?.textContent === "#1 milk"`)
}

// A chat turn: the model's call of notes_board is shown with its app,
// which renders the call's result inline, then the model's answer. The
// screenshot in docs/host.md is of this page.
func TestBrowserWebChat(t *testing.T) {
	cache := ownCache(t)
	dir := t.TempDir()
	expect(t, mcpbridge(t, dir, "", cache, "call", "add_note", `{"title":"milk","body":"buy milk"}`), 0, "added note #1")
	expect(t, mcpbridge(t, dir, "", cache, "call", "add_note", `{"title":"eggs","body":"a dozen, free range","tags":["shop"]}`), 0, "added note #2")
	model, _ := fakeOpenAI(t, `{"id":"c1","type":"function","function":{"name":"notes_board","arguments":"{}"}}`)
	base, secret := startWeb(t, append(cache, "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), "--model", "test-model")
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.EmulateViewport(760, 640), chromedp.Navigate(base+"/#"+secret))
	browsertest.Wait[bool](t, tab, `document.getElementById("status").textContent.startsWith("model: test-model")`)
	browsertest.Do(t, tab, chromedp.SendKeys("#text", "Show my notes"), chromedp.Click("#send"))
	if head := browsertest.Wait[string](t, tab, `document.querySelector(".call .head")?.textContent`); head != "notes_board {}" {
		t.Errorf("the call shown: %q", head)
	}
	frame := tab.Frame(t, "/apps/frame/")
	browsertest.Wait[bool](t, frame, `[...document.querySelectorAll("#board .card h3")].map(h => h.textContent).join() === "#1 milk,#2 eggs"`)
	answer := browsertest.Wait[string](t, tab, `document.querySelector(".answer:not(.writing)")?.textContent`)
	// Written as it came (streamed), then shown whole in one place.
	browsertest.Wait[bool](t, tab, `document.querySelectorAll(".answer:not(.writing)").length === 1 && document.getElementById("stop").hidden`)
	if !strings.HasPrefix(answer, "The tool said: #1 milk") {
		t.Errorf("the answer: %q", answer)
	}
	// The board told the host its height (ui/notifications/size-changed).
	browsertest.Wait[bool](t, tab, `document.querySelector(".call iframe").getBoundingClientRect().height < 300`)
	shot, err := chromedp.Run(tab.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(shot)); err != nil || len(shot) > 100<<10 {
		t.Fatalf("the screenshot: %d bytes, %v; want a PNG under 100 KB", len(shot), err)
	}
	// MCPBRIDGE_SCREENSHOTS=1 go test -run TestBrowserWebChat ./cmd/mcpbridge/ updates docs/web.png.
	path := filepath.Join(t.TempDir(), "web.png")
	if os.Getenv("MCPBRIDGE_SCREENSHOTS") != "" {
		path = filepath.Join("..", "..", "docs", "web.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// What an app says (ui/message) reaches the conversation, and the model,
// once the person sends it on: on /app, the example app's message waits by
// the input, then is a turn of the chat, marked as the app's.
func TestBrowserWebAppMessage(t *testing.T) {
	model, seen := fakeOpenAI(t)
	app := npmtest.Bin(t, "mcp-server-basic-vanillajs")
	base, secret := startWeb(t, append(ownCache(t), "OPENAI_BASE_URL="+model, "OPENAI_API_KEY=test", "ANTHROPIC_API_KEY="), "--model", "m", "--", app, "--stdio")
	tab := browsertest.Tab(t)
	browsertest.Do(t, tab, chromedp.Navigate(base+"/app?tool=get-time#"+secret))
	frame := tab.Frame(t, "/apps/frame/")
	browsertest.Wait[bool](t, frame, `/^\d{4}-/.test(document.getElementById("server-time").textContent)`)
	browsertest.Click(t, frame, "#send-message-btn")
	browsertest.Wait[bool](t, tab, `!document.getElementById("pending").hidden`)
	browsertest.Click(t, tab, "#pending-send")
	if got := browsertest.Wait[string](t, tab, `document.querySelector(".msg.user")?.textContent`); !regexp.MustCompile(`^from the app of get-time \(server [^)]+\), sent on by youThis is message text\.$`).MatchString(got) {
		t.Errorf("the conversation shows %q", got)
	}
	browsertest.Wait[bool](t, tab, `document.querySelector(".answer, .msg.error") !== null`)
	if _, _, messages := seen(); !slices.ContainsFunc(messages, func(m string) bool {
		return strings.HasPrefix(m, "user: [The app of server ") && strings.HasSuffix(m, "wrote this message, not the user, who chose to send it on:]\nThis is message text.")
	}) {
		t.Errorf("the model was not told the app's message as the app's: %q", messages)
	}
}
