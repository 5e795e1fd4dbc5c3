package sdkfix

// Each test here holds one behaviour of go-sdk v1.8.0 that a workaround of
// this package (or one it points to) answers. A test that fails after an
// upgrade says that go-sdk changed it: its message names what may go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
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

// Schemas.Form: go-sdk decodes an elicitation's requestedSchema into a
// map, so its properties come out in name order; a form read along with
// the connection is given back as written, whether it came as a request
// or in an input_required result.
func TestGoSDKFormsLoseTheirOrder(t *testing.T) {
	const written = `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}`
	var params mcp.ElicitParams
	if err := json.Unmarshal([]byte(`{"message":"m","requestedSchema":`+written+`}`), &params); err != nil {
		t.Fatal(err)
	}
	decoded, _ := json.Marshal(params.RequestedSchema)
	if bytes.Index(decoded, []byte(`"z"`)) < bytes.Index(decoded, []byte(`"a"`)) {
		t.Fatalf(upgraded+"an elicitation's schema keeps its order (%s): Schemas.Form can go", decoded)
	}
	for _, msg := range []string{
		`{"message":"m","requestedSchema":` + written + `}`,
		`{"resultType":"input_required","inputRequests":{"x":{"method":"elicitation/create","params":{"requestedSchema":` + written + `,"message":"m"}},"y":{"method":"roots/list"}}}`,
	} {
		k := NewSchemas()
		k.forms([]byte(msg))
		if got := k.Form(params.RequestedSchema); string(got) != written {
			t.Errorf("from %s, Form gave %s; want the schema as written", msg, got)
		}
	}
	if got := NewSchemas().Form(params.RequestedSchema); string(got) != string(decoded) {
		t.Errorf("a form never seen: %s; want go-sdk's decoding", got)
	}
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
	raw := json.RawMessage(`{"content":[{"type":"text","text":"kept"},{"type":"image","mimeType":"image/png","data":"%%%"}]}`)
	if err := json.Unmarshal(raw, new(mcp.CallToolResult)); err == nil {
		t.Fatal(upgraded + "a result with one bad part is decoded: Salvage can go")
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

// mcptool/session.go: go-sdk's ClientSession.Close waits for the calls in
// flight, even one whose write is blocked, so a session whose server
// stopped reading is closed by closing its connection first.
func TestGoSDKCloseWaitsForAWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, _ := rawServer(t, map[string]answer{"ping": {result: json.RawMessage(`{}`)}})
		st := &stalling{Transport: ct, release: make(chan struct{})}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		st.stall.Store(true)
		go cs.Ping(context.Background(), nil)
		synctest.Wait()
		closed := make(chan struct{})
		go func() {
			cs.Close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal(upgraded + "Close ends a write in flight: the provider need not close the connection first")
		default:
		}
		close(st.release)
		<-closed
	})
}

// stalling makes every write of its connection wait for release once stall
// is set, as a pipe to a server that stopped reading does.
type stalling struct {
	mcp.Transport
	stall   atomic.Bool
	release chan struct{}
}

func (s *stalling) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return &stallingConn{c, s}, err
}

type stallingConn struct {
	mcp.Connection
	s *stalling
}

func (c *stallingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if c.s.stall.Load() {
		<-c.s.release
	}
	return c.Connection.Write(ctx, msg)
}

// Sent: what a sending middleware is given of a request shows no id.
func TestGoSDKHidesRequestIDs(t *testing.T) {
	for _, req := range []mcp.Request{&mcp.CallToolRequest{}, &mcp.ListToolsRequest{}, &mcp.ClientRequest[*mcp.PingParams]{}} {
		typ := reflect.TypeOf(req)
		for i := range typ.NumMethod() {
			if name := typ.Method(i).Name; strings.Contains(name, "ID") {
				t.Fatalf(upgraded+"%v has the method %s: if it is the request's id, Sent can go", typ, name)
			}
		}
		for i := range typ.Elem().NumField() {
			if name := typ.Elem().Field(i).Name; strings.Contains(name, "ID") {
				t.Fatalf(upgraded+"%v has the field %s: if it is the request's id, Sent can go", typ, name)
			}
		}
	}
}

// Schemas, mcptool/taskwire.go: go-sdk's Tool keeps no execution member and
// its ServerCapabilities no tasks member (the 2025-11-25 tasks), and it
// decodes the CreateTaskResult a task-augmented call answers with as an
// empty result, which a Catch keeps raw.
func TestGoSDKDropsTasks(t *testing.T) {
	const caps = `{"tasks":{"requests":{"tools":{"call":{}}}},"tools":{}}`
	ct, _ := rawServer(t, map[string]answer{
		"initialize": {result: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"raw","version":"1"}}`)},
		"tools/list": {result: json.RawMessage(`{"tools":[{"name":"t","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}`)},
		"tools/call": {result: json.RawMessage(`{"task":{"taskId":"1","status":"working","createdAt":"","lastUpdatedAt":"","ttl":null}}`)},
	})
	schemas := NewSchemas()
	cs := connect(t, &Capture{Transport: ct, Schemas: schemas}, nil)
	decodedCaps, _ := json.Marshal(cs.InitializeResult().Capabilities)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	decodedTool, _ := json.Marshal(list.Tools[0])
	ctx, caught := WithCatch(context.Background())
	defer caught.Release()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	decodedRes, _ := json.Marshal(res)
	if bytes.Contains(decodedCaps, []byte(`"tasks"`)) || bytes.Contains(decodedTool, []byte(`"execution"`)) || bytes.Contains(decodedRes, []byte(`"task"`)) {
		t.Fatalf(upgraded+"it keeps the tasks of 2025-11-25 (%s, %s, %s): Schemas.Execution, Schemas.Capabilities and reading a task from the raw result can go", decodedCaps, decodedTool, decodedRes)
	}
	if got := string(schemas.Capabilities()); got != caps {
		t.Errorf("Schemas kept the capabilities %s", got)
	}
	if got := string(schemas.Execution("t")); got != `{"taskSupport":"required"}` {
		t.Errorf("Schemas kept the execution %s", got)
	}
	if raw, ok := caught.Raw(); !ok || !bytes.Contains(raw, []byte(`"taskId":"1"`)) {
		t.Errorf("the catch kept %s, %v", raw, ok)
	}
}

// mcptool/taskwire.go: go-sdk's CallToolParams has no task member, but
// CallCustomMethod sends a standard method with params of the caller's type
// (it checks only that the method is one it may send), which is how a
// tools/call asks for a task.
func TestGoSDKTaskAugmentation(t *testing.T) {
	type taskCall struct {
		*mcp.CallToolParams
		Task struct{} `json:"task"`
	}
	var got json.RawMessage
	ct, _ := rawServer(t, map[string]answer{"tools/call": {result: json.RawMessage(`{"content":[]}`)}})
	cs := connect(t, &spy{Transport: ct, sent: func(req *jsonrpc.Request) {
		if req.Method == "tools/call" {
			got = req.Params
		}
	}}, nil)
	_, err := mcp.CallCustomMethod[*taskCall, *mcp.CallToolResult](context.Background(), cs, "tools/call", &taskCall{CallToolParams: &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}}})
	if err != nil || !bytes.Contains(got, []byte(`"task":{}`)) || !bytes.Contains(got, []byte(`"name":"t"`)) {
		t.Fatalf(upgraded+"CallCustomMethod no longer sends a tools/call with its own params (%s, %v): ask for a task another way", got, err)
	}
}

// spy is a transport whose connections show sent each request they write.
type spy struct {
	mcp.Transport
	sent func(*jsonrpc.Request)
}

func (s *spy) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return spyConn{c, s.sent}, nil
}

type spyConn struct {
	mcp.Connection
	sent func(*jsonrpc.Request)
}

func (c spyConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok {
		c.sent(req)
	}
	return c.Connection.Write(ctx, msg)
}

// Unheard: go-sdk's client drops a notification of a method it does not
// know, before any middleware sees it: the status notification of the
// 2025-11-25 tasks.
func TestGoSDKDropsTaskStatus(t *testing.T) {
	ct, _ := rawServer(t, map[string]answer{"ping": {result: json.RawMessage(`{}`),
		notice: &jsonrpc.Request{Method: "notifications/tasks/status", Params: json.RawMessage(`{"taskId":"t1","status":"working"}`)}}})
	var heard, seen atomic.Value
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			seen.Store(method)
			return next(ctx, method, req)
		}
	})
	cs, err := client.Connect(context.Background(), &Capture{Transport: ct, Unheard: Unheard{
		"notifications/tasks/status": func(params json.RawMessage) { heard.Store(string(params)) },
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if seen.Load() != nil {
		t.Fatalf(upgraded+"it takes %v: Unheard may go", seen.Load())
	}
	if heard.Load() != `{"taskId":"t1","status":"working"}` {
		t.Fatalf("Unheard heard %v", heard.Load())
	}
}

// Catch: go-sdk decodes every result with a new decoder whose buffer is
// tens of kilobytes, whatever the result's size; a relay would then encode
// it anew.
func TestGoSDKDecodesEveryResultAnew(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 16
	for range n {
		if err := json.Unmarshal([]byte(`{"content":[]}`), new(mcp.CallToolResult)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per < 8<<10 {
		t.Fatalf(upgraded+"decoding an empty result allocates %d bytes: a Catch need not take results", per)
	}
}
