package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// A client is one way of calling the echo tool: a Go client calls it in
// this process (call), the TypeScript one is driven in its own (ts).
type client struct {
	name  string
	call  func(ctx context.Context) error
	ts    *tsDriver
	close func() error
}

// A server is where the clients find the echo server: a command to start
// (stdio) or a URL.
type server struct {
	stdio   bool
	self    string // this program, which is the server with serverEnv set
	url     string
	answers string // the transport's name: stdio, http, http-json
}

func (s server) command() *exec.Cmd {
	cmd := exec.Command(s.self)
	cmd.Env = append(os.Environ(), serverEnv+"=stdio")
	return cmd
}

// args is the arguments of every call: the text, as JSON.
func args(text string) json.RawMessage {
	data, _ := json.Marshal(map[string]string{"text": text})
	return data
}

// goSDK is a bare go-sdk client. Over HTTP its transport keeps as many
// idle connections as there are callers (Go's default keeps two), so that
// no caller opens a connection of its own for each call.
func goSDK(ctx context.Context, s server, text string, callers int) (*client, error) {
	var t mcp.Transport = &mcp.CommandTransport{Command: s.command()}
	if !s.stdio {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = callers
		t = &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: tr}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "callbench", Version: "1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("go-sdk: %w", err)
	}
	a := args(text)
	return &client{name: "go-sdk ClientSession.CallTool", close: cs.Close, call: func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: a})
		if err != nil {
			return err
		}
		return check(len(res.Content) == 1 && res.Content[0].(*mcp.TextContent).Text == text)
	}}, nil
}

// bridge is an mcpbridge provider, through the public API: the handler a
// model's calls go through (Provider.Handler) and the host's own call,
// which returns the result as the server sent it (Provider.CallTool).
func bridge(ctx context.Context, s server, text string) (handler, callTool *client, err error) {
	var p *mcptool.Provider
	if s.stdio {
		p = mcptool.FromCommand(mcptool.Command{Path: s.self, Env: map[string]string{serverEnv: "stdio"}}, nil)
	} else {
		p = mcptool.FromURL(mcptool.HTTP{URL: s.url}, nil)
	}
	if err := p.Connect(ctx); err != nil {
		return nil, nil, fmt.Errorf("mcpbridge: %w", err)
	}
	a := args(text)
	h := p.Handler()
	handler = &client{name: "mcpbridge Handler().Call", close: p.Close, call: func(ctx context.Context) error {
		reply, err := h.Call(ctx, "echo", a)
		if err != nil {
			return err
		}
		return check(reply.Text() == text)
	}}
	callTool = &client{name: "mcpbridge CallTool", close: func() error { return nil }, call: func(ctx context.Context) error {
		res, err := p.CallTool(ctx, "echo", a)
		if err != nil {
			return err
		}
		return check(len(res.Content) == 1 && res.Content[0].(*mcp.TextContent).Text == text)
	}}
	return handler, callTool, nil
}

func check(ok bool) error {
	if !ok {
		return errors.New("the echo came back wrong")
	}
	return nil
}

// The floor is a client written by hand for this one server: a request is
// written from a template, and an answer is matched by its id, read by
// hand, and not decoded. No MCP client can do less.

// pipeFloor is the floor over stdio: one writer, one reader that hands
// each answer to its caller.
type pipeFloor struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	wmu     sync.Mutex
	mu      sync.Mutex
	waiting map[int64]chan []byte
	next    atomic.Int64
	args    json.RawMessage
	text    string
	bufs    sync.Pool
}

func floorStdio(ctx context.Context, s server, text string) (*client, error) {
	f := &pipeFloor{cmd: s.command(), waiting: map[int64]chan []byte{}, args: args(text), text: text}
	f.cmd.Stderr = os.Stderr
	in, err := f.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := f.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := f.cmd.Start(); err != nil {
		return nil, err
	}
	f.in = in
	go f.read(out)
	init := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}`
	if _, err := f.request(ctx, "initialize", []byte(init)); err != nil {
		f.close()
		return nil, fmt.Errorf("floor: %w", err)
	}
	f.wmu.Lock()
	_, err = io.WriteString(f.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	f.wmu.Unlock()
	if err != nil {
		f.close()
		return nil, err
	}
	params := []byte(`{"name":"echo","arguments":` + string(f.args) + `}`)
	return &client{name: "floor (by hand)", close: f.close, call: func(ctx context.Context) error {
		answer, err := f.request(ctx, "tools/call", params)
		if err != nil {
			return err
		}
		return check(len(answer) > len(f.text) && bytes.Contains(answer, []byte(`"result"`)))
	}}, nil
}

// request writes one request and waits for its answer, which is the
// caller's until the next request.
func (f *pipeFloor) request(ctx context.Context, method string, params []byte) ([]byte, error) {
	id := f.next.Add(1)
	ch := make(chan []byte, 1)
	f.mu.Lock()
	f.waiting[id] = ch
	f.mu.Unlock()
	buf, _ := f.bufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	b := append((*buf)[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	b = append(b, `","params":`...)
	b = append(b, params...)
	b = append(b, "}\n"...)
	f.wmu.Lock()
	_, err := f.in.Write(b)
	f.wmu.Unlock()
	*buf = b
	f.bufs.Put(buf)
	if err != nil {
		return nil, err
	}
	select {
	case answer := <-ch:
		if answer == nil {
			return nil, io.ErrUnexpectedEOF
		}
		return answer, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// read hands each line to the request of its id, a copy of its own.
func (f *pipeFloor) read(out io.Reader) {
	r := bufio.NewReaderSize(out, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			break
		}
		if id, ok := idOf(line); ok {
			f.mu.Lock()
			ch := f.waiting[id]
			delete(f.waiting, id)
			f.mu.Unlock()
			if ch != nil {
				ch <- bytes.Clone(line)
			}
		}
		line = line[:0]
	}
	f.mu.Lock()
	for id, ch := range f.waiting {
		close(ch)
		delete(f.waiting, id)
	}
	f.mu.Unlock()
}

// idOf reads the integer id of an answer the echo server wrote: its first
// member after jsonrpc.
func idOf(line []byte) (int64, bool) {
	_, rest, ok := bytes.Cut(line, []byte(`"id":`))
	if !ok {
		return 0, false
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return id, err == nil
}

func (f *pipeFloor) close() error {
	f.in.Close()
	return f.cmd.Wait()
}

// floorHTTP is the floor over streamable HTTP: a POST of the request
// written from a template, its event stream read whole, found to hold a
// result.
func floorHTTP(ctx context.Context, s server, text string, callers int) (*client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = callers
	hc := &http.Client{Transport: tr}
	var session string
	var next atomic.Int64
	var bufs sync.Pool
	post := func(ctx context.Context, method string, params []byte) ([]byte, error) {
		buf, _ := bufs.Get().(*bytes.Buffer)
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		defer bufs.Put(buf)
		buf.Reset()
		buf.WriteString(`{"jsonrpc":"2.0","id":`)
		buf.WriteString(strconv.FormatInt(next.Add(1), 10))
		buf.WriteString(`,"method":"`)
		buf.WriteString(method)
		buf.WriteString(`","params":`)
		buf.Write(params)
		buf.WriteString("}")
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(buf.Bytes()))
		if err != nil {
			return nil, err
		}
		req.Header["Content-Type"] = []string{"application/json"}
		req.Header["Accept"] = []string{"application/json, text/event-stream"}
		if session != "" {
			req.Header["Mcp-Session-Id"] = []string{session}
			req.Header["Mcp-Protocol-Version"] = []string{"2025-11-25"}
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		buf.Reset()
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(buf.Bytes(), []byte(`"result"`)) {
			return nil, fmt.Errorf("floor: %s: %s", resp.Status, buf.Bytes())
		}
		return buf.Bytes(), nil
	}
	init := `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}`
	if _, err := post(ctx, "initialize", []byte(init)); err != nil {
		return nil, err
	}
	params := []byte(`{"name":"echo","arguments":` + string(args(text)) + `}`)
	return &client{name: "floor (by hand)", close: func() error { tr.CloseIdleConnections(); return nil }, call: func(ctx context.Context) error {
		answer, err := post(ctx, "tools/call", params)
		if err != nil {
			return err
		}
		return check(len(answer) > len(text))
	}}, nil
}

// tsClient is the TypeScript SDK's client, in a Node process of its own
// running tsclient.mjs.
//
//go:embed tsclient.mjs
var tsScript []byte

type tsDriver struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func tsClient(s server, node, sdkDir, scriptDir string, size int) (*client, error) {
	script := filepath.Join(scriptDir, "tsclient.mjs")
	if err := os.WriteFile(script, tsScript, 0o644); err != nil {
		return nil, err
	}
	target, kind := s.url, "http"
	if s.stdio {
		target, kind = s.self, "stdio"
	}
	// The SDK's HTTP client adds a listener to one AbortSignal for each
	// request and never removes it, and Node warns for each past 1,500:
	// the warnings are left out, the leak is the SDK's.
	cmd := exec.Command(node, "--no-warnings", script, sdkDir, strconv.Itoa(size), kind, target)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &tsDriver{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	return &client{name: "TypeScript SDK Client.callTool", ts: d, close: func() error {
		in.Close()
		return cmd.Wait()
	}}, nil
}

// run has the driver run a command, and returns its wall time.
func (d *tsDriver) run(ctx context.Context, command string) (time.Duration, error) {
	if _, err := io.WriteString(d.in, command+"\n"); err != nil {
		return 0, err
	}
	answered := make(chan error, 1)
	var reply struct{ NS int64 }
	go func() {
		if !d.out.Scan() {
			answered <- fmt.Errorf("the TypeScript client ended: %v", d.out.Err())
			return
		}
		answered <- json.Unmarshal(d.out.Bytes(), &reply)
	}()
	select {
	case err := <-answered:
		return time.Duration(reply.NS), err
	case <-ctx.Done():
		d.cmd.Process.Kill()
		<-answered
		return 0, ctx.Err()
	}
}
