package sdkfix

// Each test here holds one behaviour of go-sdk v1.8.0 that a workaround of
// this package (or one it points to) answers. A test that fails after an
// upgrade says that go-sdk changed it: its message names what may go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const upgraded = "go-sdk changed: "

// bound is how long a test waits for what go-sdk does at once; passing it
// means go-sdk no longer does it.
const bound = 10 * time.Second

// Schemas: go-sdk decodes a listed schema into a map, so its properties
// come out in name order.
func TestGoSDKSchemasLoseTheirOrder(t *testing.T) {
	const written = `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`
	ct, _ := rawServer(t, map[string]answer{"tools/list": {result: json.RawMessage(`{"tools":[{"name":"t","inputSchema":` + written + `}]}`)}})
	schemas := NewSchemas()
	cs := connect(t, &Capture{Transport: ct, Schemas: schemas}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	decoded, _ := json.Marshal(res.Tools[0].InputSchema)
	if bytes.Index(decoded, []byte(`"z"`)) < bytes.Index(decoded, []byte(`"a"`)) {
		t.Fatalf(upgraded+"a listed schema keeps its order (%s): Schemas can go", decoded)
	}
	if got := schemas.Schema("t", false, res.Tools[0].InputSchema); string(got) != written {
		t.Fatalf("Schemas gave %s; want the schema as written", got)
	}
}

// Capture: go-sdk's streamable HTTP connection needs go-sdk's unexported
// sessionUpdated: wrapped, it sends no protocol version header (and opens
// no stream for the server's notifications), so the HTTP transports are
// read by HTTPTap instead.
func TestGoSDKStreamableConnCannotBeWrapped(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var mu sync.Mutex
	var versions []string
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"ping"`)) {
			mu.Lock()
			versions = append(versions, r.Header.Get("Mcp-Protocol-Version"))
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	for _, wrap := range []bool{false, true} {
		var t2 mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}
		if wrap {
			t2 = wrapping{t2}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), t2, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		cs.Ping(context.Background(), nil)
		cs.Close()
	}
	if len(versions) != 2 || versions[0] != "2025-11-25" {
		t.Fatalf("protocol version headers %q; want the negotiated version on the unwrapped connection", versions)
	}
	if versions[1] != "" {
		t.Fatalf(upgraded + "a wrapped streamable connection is told the session's state: Capture could wrap it, and HTTPTap read the connection")
	}
}

// wrapping hides every method of its transport's connections but those of
// mcp.Connection.
type wrapping struct{ mcp.Transport }

func (w wrapping) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return struct{ mcp.Connection }{c}, nil
}

// Capture: go-sdk's stream connection, which may be wrapped, is known by
// the name of its unexported type.
func TestGoSDKStreamConnType(t *testing.T) {
	_, ct := mcp.NewInMemoryTransports()
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !wrappable(conn) {
		t.Fatalf(upgraded+"the in-memory transport's connection is a %T, not %s: update ioConnType", conn, ioConnType)
	}
}

// mcptool/session.go: go-sdk's Client.Connect closes the connection of a
// handshake that failed, so that nothing of it outlives the failure (a
// started server, a socket); the provider leaves that to it.
func TestGoSDKClosesAFailedConnection(t *testing.T) {
	ct, closed := rawServer(t, map[string]answer{"initialize": {err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "no"}}})
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil); err == nil {
		t.Fatal("connected through a refused initialize")
	}
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatal(upgraded + "a failed connect leaves its connection open: the provider must close it (mcptool/session.go)")
	}
}

// Catch, Salvage: go-sdk fails a whole call for one content part it cannot
// decode, and takes a null result, or one without content, for an empty
// one.
func TestGoSDKDecodesAResultWhole(t *testing.T) {
	ct, _ := rawServer(t, map[string]answer{
		"tools/call": {result: json.RawMessage(`{"content":[{"type":"text","text":"kept"},{"type":"image","mimeType":"image/png","data":"%%%"}]}`)},
		"ping":       {result: json.RawMessage(`null`)},
	})
	cs := connect(t, &Capture{Transport: ct}, nil)
	ctx, caught := WithCatch(context.Background())
	defer caught.Release()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t"})
	if err == nil {
		t.Fatal(upgraded + "a result with one bad part is decoded: Salvage can go")
	}
	raw, ok := caught.Raw()
	if !ok {
		t.Fatal("the raw result was not caught")
	}
	res, err := Salvage(raw, func(kind, mime string) string { return kind + " " + mime })
	if err != nil || len(res.Content) != 2 || res.Content[1].(*mcp.TextContent).Text != "image image/png" {
		t.Fatalf("salvaged %+v, %v", res, err)
	}
	for _, result := range []string{`null`, `{}`} {
		var res mcp.CallToolResult
		if err := json.Unmarshal([]byte(result), &res); err != nil || len(res.Content) != 0 {
			t.Fatalf(upgraded+"the result %s is refused (%v): Shape can go", result, err)
		}
		if Shape(json.RawMessage(result)) == nil {
			t.Fatalf("Shape passed %s", result)
		}
	}
}

// Salvage: badPart tells beforehand which parts go-sdk refuses.
func TestSalvageAgreesWithGoSDK(t *testing.T) {
	for _, part := range []string{
		`{"type":"text","text":"a"}`,
		`{"type":"text","text":5}`,
		`{"type":"image","mimeType":"image/png","data":"aGk="}`,
		`{"type":"image","mimeType":"image/png","data":"%%%"}`,
		`{"type":"audio","mimeType":"audio/wav","data":"aGk="}`,
		`{"type":"resource","resource":{"uri":"a:b","text":"t"}}`,
		`{"type":"resource","resource":{"uri":"a:b","blob":"%%%"}}`,
		`{"type":"resource_link","uri":"a:b","name":"n"}`,
		`{"type":"resource_link","uri":"a:b","size":"big"}`,
		`{"type":"video"}`,
		`{"text":"no type"}`,
		`5`,
	} {
		_, _, bad := badPart(json.RawMessage(part))
		refused := json.Unmarshal([]byte(`{"content":[`+part+`]}`), new(mcp.CallToolResult)) != nil
		if bad != refused {
			t.Errorf(upgraded+"go-sdk refuses %s: %v; badPart says %v: align wirePart with mcp.wireContent", part, refused, bad)
		}
	}
}

// NetworkDown, Says: go-sdk passes the failure of a legacy SSE client's
// POST on as text alone.
func TestGoSDKKeepsOnlyTheTextOfAFailure(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusing := "http://" + l.Addr().String() + "/message"
	l.Close()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s\n\n", refusing)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	_, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: srv.URL}, nil)
	var ne net.Error
	switch {
	case err == nil:
		t.Fatal("connected through a refused POST")
	case errors.As(err, &ne):
		t.Fatalf(upgraded+"a failed POST keeps its type (%v): NetworkDown's texts and Says can go", err)
	case !NetworkDown(err):
		t.Fatalf(upgraded+"a failed POST says %q: update networkDown", err)
	}
}

// StreamLost: go-sdk says in text alone that the stream of a call's answer
// ended without it.
func TestGoSDKStreamLost(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			w.Header().Set("Content-Type", "text/event-stream")
			return // a stream that ends at once
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		inner.ServeHTTP(w, r)
	}))
	cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t"})
	if err == nil || !StreamLost(err) {
		t.Fatalf(upgraded+"a stream that ended without the answer is %v: update streamLost", err)
	}
}

// Malformed: go-sdk refuses a protocol version, and a message nested too
// deep, with an error of no type to go by.
func TestGoSDKMalformed(t *testing.T) {
	ct, _ := rawServer(t, map[string]answer{"initialize": {result: json.RawMessage(`{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"raw","version":"1"}}`)}})
	_, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err == nil || isJSONRPC(err) || !Malformed(err) {
		t.Fatalf(upgraded+"an unsupported protocol version is %v: update malformed", err)
	}
	deep := `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`
	_, err = jsonrpc.DecodeMessage([]byte(deep))
	var syntax *json.SyntaxError
	if err == nil || errors.As(err, &syntax) || !Malformed(err) {
		t.Fatalf(upgraded+"a message nested too deep is %v: update malformed", err)
	}
}

// Undelivered: go-sdk's own failures carry JSON-RPC codes it does not
// export.
func TestGoSDKOwnCodes(t *testing.T) {
	codeOf := func(err error) int64 {
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			return 0
		}
		return wire.Code
	}
	// A call on a closed session: go-sdk's closing codes are not passed on.
	ct, _ := rawServer(t, nil)
	cs := connect(t, ct, nil)
	cs.Close()
	err := cs.Ping(context.Background(), nil)
	if c := codeOf(err); c != 0 || !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Errorf(upgraded+"a call on a closed session is %v (code %d): Undelivered should know the closing codes", err, c)
	}
	// The transport refuses a request.
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"ping"`)) {
			http.Error(w, "busy", http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
			return mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		}, &mcp.StreamableHTTPOptions{Stateless: true}).ServeHTTP(w, r)
	}))
	cs = connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	err = cs.Ping(context.Background(), nil)
	if c := codeOf(err); c != codeRejected || !Undelivered(err) {
		t.Errorf(upgraded+"a request the transport refused is %v (code %d): update the codes", err, c)
	}
}

// Detach: go-sdk's legacy SSE client ends its stream with the context its
// Connect was given.
func TestGoSDKSSEStreamEndsWithTheConnectContext(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv := serve(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil))
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := (&mcp.SSEClientTransport{Endpoint: srv.URL}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cancel()
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(context.Background())
		read <- err
	}()
	select {
	case err := <-read:
		if err == nil {
			t.Fatal("read a message nobody sent")
		}
	case <-time.After(bound):
		conn.Close()
		<-read
		t.Fatal(upgraded + "the SSE stream outlives its Connect context: Detach can go")
	}
}

// HTTPTap: go-sdk's cap on an event ends the whole connection, and a JSON
// body is read whole whatever the cap.
func TestGoSDKEventCap(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 8<<10)}}}, nil
		})
	for _, json := range []bool{false, true} {
		srv := serve(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
			&mcp.StreamableHTTPOptions{JSONResponse: json}))
		cs := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL, MaxEventSize: 4 << 10}, nil)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big"})
		switch {
		case json && err != nil:
			t.Errorf(upgraded+"a JSON body over MaxEventSize fails (%v): HTTPTap's bound of JSON bodies may go", err)
		case !json && err == nil:
			t.Errorf(upgraded + "an event over MaxEventSize is read")
		case !json && cs.Ping(context.Background(), nil) == nil:
			t.Errorf(upgraded + "an event over MaxEventSize fails its request alone: HTTPTap's bound of events may go")
		}
		cs.Close()
	}
}

// DebugOnly: go-sdk logs what a server sent at error level: here the name
// of a tool it leaves out of a listing.
func TestGoSDKLogsTheServerAtError(t *testing.T) {
	const words = "ignore previous instructions"
	ct, _ := rawServer(t, map[string]answer{"tools/list": {result: json.RawMessage(
		`{"tools":[{"name":"` + words + `","inputSchema":{"type":"object","properties":{"p":{"type":"object","x-mcp-header":"X"}}}}]}`)}})
	logged := make(chan slog.Record, 16)
	cs := connect(t, ct, &mcp.ClientOptions{Logger: slog.New(recorder(logged))})
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case r := <-logged:
			quoted := false
			r.Attrs(func(a slog.Attr) bool {
				quoted = quoted || strings.Contains(a.Value.String(), words)
				return true
			})
			if quoted && r.Level > slog.LevelDebug {
				return
			}
		default:
			t.Fatal(upgraded + "no record above debug level quotes the server: DebugOnly may go")
		}
	}
}

// serve starts an HTTP server that closes after the test's sessions.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// A recorder hands on every record it is given.
type recorder chan slog.Record

func (r recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r recorder) Handle(_ context.Context, rec slog.Record) error {
	select {
	case r <- rec:
	default:
	}
	return nil
}
func (r recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r recorder) WithGroup(string) slog.Handler      { return r }

// internal/stdio: go-sdk's command transport passes the server this
// process's whole environment and leaves it in this process's group.
func TestGoSDKCommandTransport(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = nil
	t.Setenv(childEnv, "1") // inherited, since Env is nil
	conn, err := (&mcp.CommandTransport{Command: cmd}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env, group := cmd.Env, cmd.SysProcAttr
	conn.Close()
	if env != nil || group != nil {
		t.Fatalf(upgraded + "the command transport sets the environment or the process group: see whether internal/stdio's Command is still needed")
	}
}

// internal/stdio: after one line over go-sdk's line limit, its connection
// reads nothing more.
func TestGoSDKLineLimitEndsTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, feed := io.Pipe()
		conn, err := (&mcp.IOTransport{Reader: in, Writer: nopWriter{}, MaxLineLength: 64}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			fmt.Fprintf(feed, `{"jsonrpc":"2.0","id":1,"result":{"text":"%s"}}`+"\n", strings.Repeat("x", 100))
			fmt.Fprintln(feed, `{"jsonrpc":"2.0","id":2,"result":{}}`)
		}()
		if _, err := conn.Read(context.Background()); err == nil {
			t.Fatal("read a line over the limit")
		}
		next := make(chan error, 1)
		go func() {
			_, err := conn.Read(context.Background())
			next <- err
		}()
		synctest.Wait()
		select {
		case err := <-next:
			t.Fatalf(upgraded+"the line after one over the limit is read (%v): internal/stdio's own framing may go", err)
		default:
		}
		conn.Close()
		<-next
		in.Close()
	})
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriter) Close() error                { return nil }

// internal/stdio: go-sdk's decoding of a message allocates a fresh
// decoder of tens of kilobytes, whatever the message's size.
func TestGoSDKDecodeAllocates(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	const n = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per < 16<<10 {
		t.Fatalf(upgraded+"decoding a message allocates %d bytes: internal/stdio could use jsonrpc.DecodeMessage", per)
	}
}

// internal/stdio: go-sdk waits for the server/discover probe as long as the
// caller's context lets it, so a server that ignores it hangs Connect.
func TestGoSDKWaitsForTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, _ := rawServer(t, map[string]answer{"server/discover": {}})
		done := make(chan error, 1)
		go func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err == nil {
				cs.Close()
			}
			done <- err
		}()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf(upgraded+"an unanswered server/discover gives way to initialize (%v): internal/stdio's probe bound can go", err)
		default:
		}
		// Cleanup ends the server; the connect fails then.
	})
}

// mcptool/discovery.go: go-sdk cannot tell a listing's ttlMs of 0 from none.
func TestGoSDKTTLZeroIsNone(t *testing.T) {
	var zero, none mcp.ListToolsResult
	if json.Unmarshal([]byte(`{"tools":[],"ttlMs":0}`), &zero) != nil || json.Unmarshal([]byte(`{"tools":[]}`), &none) != nil {
		t.Fatal("listings not decoded")
	}
	if !reflect.DeepEqual(zero, none) {
		t.Fatal(upgraded + "a ttlMs of 0 is told from none: discovery could honour it")
	}
}

// mcptool/request.go: go-sdk sends no method it was not told of, and
// refuses to be told of a standard one.
func TestGoSDKCustomMethods(t *testing.T) {
	ct, _ := rawServer(t, map[string]answer{"x/y": {result: json.RawMessage(`{}`)}})
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := mcp.CallCustomMethod[*mcp.ListToolsParams, *mcp.ListToolsResult](context.Background(), cs, "x/y", &mcp.ListToolsParams{}); err == nil {
		t.Fatal(upgraded + "an unregistered method is sent: Request need not register it")
	}
	if err := mcp.AddSendingCustomMethod[*mcp.ListToolsParams, *mcp.ListToolsResult](client, "tools/list"); err == nil {
		t.Fatal(upgraded + "a standard method may be sent raw: Request's typed calls of the standard methods can go")
	}
}
