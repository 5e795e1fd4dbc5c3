//go:build linux

package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// awaiting calls as sdkfix's Caller does: the answer to each request it
// writes (ids "a-N") is put in the request's own channel by the function
// given to Answer, on the goroutine that read it, which it notes.
type awaiting struct {
	conn   *Conn
	mu     sync.Mutex
	chans  map[string]chan *jsonrpc.Response
	readOn map[string]uint64 // the goroutine that read each answer
	next   int
}

func newAwaiting(conn *Conn) *awaiting {
	a := &awaiting{conn: conn, chans: map[string]chan *jsonrpc.Response{}, readOn: map[string]uint64{}}
	conn.Answer(func(r *jsonrpc.Response) bool {
		id, _ := r.ID.Raw().(string)
		a.mu.Lock()
		ch := a.chans[id]
		delete(a.chans, id)
		a.readOn[id] = goroutine()
		a.mu.Unlock()
		if ch == nil {
			return false
		}
		ch <- r
		return true
	})
	return a
}

// awaited is what one call through awaiting saw.
type awaited struct {
	resp     *jsonrpc.Response
	awaited  bool // Await returned the answer
	onCaller bool // and it was read on the caller's goroutine
}

// call writes a request and awaits its answer: with Await, then, if Await
// gave up, on its channel.
func (a *awaiting) call(ctx context.Context, method, params string) (awaited, error) {
	id, ch, err := a.send(ctx, method, params)
	if err != nil {
		return awaited{}, err
	}
	var got awaited
	got.resp, got.awaited = a.conn.Await(ctx, ch)
	if !got.awaited {
		select {
		case got.resp = <-ch:
		case <-a.conn.readerDone:
			return got, fmt.Errorf("%s: reading ended", method)
		case <-ctx.Done():
			return got, fmt.Errorf("%s: %w", method, ctx.Err())
		}
	}
	a.mu.Lock()
	got.onCaller = got.awaited && a.readOn[id] == goroutine()
	a.mu.Unlock()
	if got.resp.ID.Raw() != id {
		return got, fmt.Errorf("answer %v to %v", got.resp.ID.Raw(), id)
	}
	return got, nil
}

// send writes a request marked Awaited, and returns its id and the channel
// its answer goes to.
func (a *awaiting) send(ctx context.Context, method, params string) (string, chan *jsonrpc.Response, error) {
	a.mu.Lock()
	a.next++
	id := "a-" + strconv.Itoa(a.next)
	ch := make(chan *jsonrpc.Response, 1)
	a.chans[id] = ch
	a.mu.Unlock()
	req := request(id, method, params)
	req.Extra = Awaited{}
	return id, ch, a.conn.Write(ctx, req)
}

// goroutine returns the id of the goroutine that calls it.
func goroutine() uint64 {
	var buf [64]byte
	f := strings.Fields(string(buf[:runtime.Stack(buf[:], false)])) // goroutine N [running]:
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// echoed checks that a call to the fake server was answered with its own
// method and params.
func echoed(t *testing.T, got awaited, method, params string) {
	t.Helper()
	var res struct {
		Method string
		Params json.RawMessage
	}
	if err := json.Unmarshal(got.resp.Result, &res); err != nil || res.Method != method || string(res.Params) != params {
		t.Fatalf("answer %s (%v), want %s %s echoed", got.resp.Result, err, method, params)
	}
}

// restless has the reader, once it gave its turn to callers, wait for
// nothing but a call back to take it again: what a test sees then does not
// depend on the time between calls. The reader gives its turn up after
// the first answer it reads.
func restless(conn *Conn) {
	conn.restFor = time.Hour
	conn.wanted.Store(true)
}

// turnGivenUp starts the fake server and calls it once, after which the
// reader has given up its turn (restless).
func turnGivenUp(t *testing.T) (*Conn, *awaiting) {
	t.Helper()
	conn := start(t, child(t, "fake"))
	restless(conn)
	a := newAwaiting(conn)
	if _, err := a.call(t.Context(), "tools/call", `{}`); err != nil {
		t.Fatal(err)
	}
	return conn, a
}

// Once a caller awaits an answer, the reader's goroutine gives up its turn,
// and the calls after are read on their callers' goroutines, each answer
// right.
func TestAwaitReadsOnTheCallersGoroutine(t *testing.T) {
	conn := start(t, child(t, "fake"))
	restless(conn)
	a := newAwaiting(conn)
	for i := range 20 {
		params := fmt.Sprintf(`{"name":"t%d"}`, i)
		got, err := a.call(t.Context(), "tools/call", params)
		if err != nil {
			t.Fatal(err)
		}
		echoed(t, got, "tools/call", params)
		// The first is the reader's to read: it held the turn.
		if i > 0 && !got.onCaller {
			t.Fatalf("call %d: awaited %v, read on the caller's goroutine %v; want both", i, got.awaited, got.onCaller)
		}
	}
}

// Callers that await answers at once, with go-sdk's requests among them,
// read from Read, each get their own answer.
func TestAwaitManyAtOnce(t *testing.T) {
	conn := start(t, child(t, "fake"))
	a := newAwaiting(conn)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	const callers, calls = 16, 100
	errs := make(chan error, callers)
	var onCaller sync.WaitGroup
	for c := range callers {
		onCaller.Go(func() {
			for i := range calls {
				params := fmt.Sprintf(`{"name":"c%d-%d"}`, c, i)
				got, err := a.call(ctx, "tools/call", params)
				if err == nil && !strings.Contains(string(got.resp.Result), params) {
					err = fmt.Errorf("answer %s, want %s echoed", got.resp.Result, params)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 20 {
		r := call(t, conn, i+1, "tools/list", "")
		if r.Error != nil {
			t.Fatalf("go-sdk's request %d: %v", i+1, r.Error)
		}
	}
	onCaller.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// An answer slower than a caller's turn is read by the reader's goroutine,
// called back to its turn as the caller's ends: nothing read in the turn
// is lost, and the answer comes.
func TestAwaitASlowAnswer(t *testing.T) {
	conn, a := turnGivenUp(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	_, held, err := a.send(ctx, "hold", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := conn.Await(ctx, held); ok {
		t.Fatalf("Await = %s, before the server answered", r.Result)
	}
	if r := call(t, conn, 1, "release", ""); string(r.Result) != `"released"` {
		t.Fatalf("release: %s", r.Result)
	}
	answered(t, ctx, held, `"held"`)
}

// A caller whose context ends while another reads stops awaiting; one
// whose context has passed its deadline reads for no time.
func TestAwaitGivesUpWithItsContext(t *testing.T) {
	conn := start(t, child(t, "fake"))
	a := newAwaiting(conn)
	// The reader holds the turn: the caller waits for it, or its answer.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ch := make(chan *jsonrpc.Response, 1)
	if _, ok := conn.Await(ctx, ch); ok {
		t.Fatal("Await with its context ended: answered, with nothing written")
	}
	restless(conn)
	if _, err := a.call(t.Context(), "tools/call", `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := a.call(t.Context(), "tools/call", `{}`); err != nil {
		t.Fatal(err)
	}
	// The turn is free now, and taken with a deadline already passed.
	past, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	if _, ok := conn.Await(past, ch); ok {
		t.Fatal("Await past its deadline: answered, with nothing written")
	}
	if _, err := a.call(t.Context(), "tools/call", `{"after":1}`); err != nil {
		t.Fatalf("a call after: %v", err)
	}
}

// A server that exits while a caller reads in its turn ends reading as it
// would have in the reader's: Read says how it exited.
func TestAwaitAsTheServerExits(t *testing.T) {
	conn, a := turnGivenUp(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	if got, err := a.call(ctx, "exit", `{"code":3}`); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call: %v, answer %+v; want reading ended", err, got.resp)
	}
	_, err := conn.Read(ctx)
	if !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Read = %v, want EOF saying the server exited with status 3", err)
	}
}

// What the server says after the last answer a caller awaited, with none
// awaited after, is read: the reader takes its turn back.
func TestAwaitThenTheServerSpeaks(t *testing.T) {
	conn := start(t, child(t, "fake"))
	conn.wanted.Store(true) // the reader gives its turn up after the first answer
	a := newAwaiting(conn)
	const calls = 3
	notes := make(chan error, 1)
	go func() { // go-sdk's reading goroutine
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		for range calls {
			m, err := conn.Read(ctx)
			if r, ok := m.(*jsonrpc.Request); err == nil && (!ok || r.Method != "notes/after") {
				err = fmt.Errorf("read %+v, want the note", m)
			}
			if err != nil {
				notes <- err
				return
			}
		}
		notes <- nil
	}()
	for range calls {
		if _, err := a.call(t.Context(), "then-note", `{}`); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-notes; err != nil {
		t.Fatal(err)
	}
}

// A caller never waits in its turn for go-sdk to read what it read: the
// message goes to the reader, in its order, and the caller's turn ends.
func TestAwaitLeavesGoSDKsMessagesToTheReader(t *testing.T) {
	ctx, conn, ch := awaitUnread(t, "bignote", `{"size":10}`) // a note, then the answer
	if params := readNotification(t, conn, "notifications/message"); !strings.Contains(string(params), "yyyyyyyyyy") {
		t.Fatalf("the note: %s", params)
	}
	answered(t, ctx, ch, `"after bignote"`)
}

// Messages go-sdk has not taken keep their order behind the first it did
// not take, the rest of a batch with them, its answer too: the reader hands
// them on in the order the server wrote them.
func TestAwaitKeepsABatchInOrder(t *testing.T) {
	ctx, conn, ch := awaitUnread(t, "batch-notes", `{}`)
	readNotification(t, conn, "one")
	select {
	case r := <-ch:
		t.Fatalf("the answer %s came before the second note was read", r.Result)
	default:
	}
	readNotification(t, conn, "two")
	answered(t, ctx, ch, `"three"`)
}

// awaitUnread calls method in a caller's turn with nothing reading what
// go-sdk would, and checks that the turn ends without the answer, which
// follows what the server wrote before it. It returns the answer's channel.
func awaitUnread(t *testing.T, method, params string) (context.Context, *Conn, chan *jsonrpc.Response) {
	t.Helper()
	conn, a := turnGivenUp(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	_, ch, err := a.send(ctx, method, params)
	if err != nil {
		t.Fatal(err)
	}
	awaited := make(chan bool, 1)
	go func() {
		_, ok := conn.Await(ctx, ch)
		awaited <- ok
	}()
	select {
	case ok := <-awaited:
		if ok {
			t.Fatal("Await took the answer ahead of what the server wrote before it, which go-sdk had not read")
		}
	case <-time.After(testTimeout):
		t.Fatal("Await waits for go-sdk to read")
	}
	return ctx, conn, ch
}

// answered checks that the answer on ch comes, with the result want.
func answered(t *testing.T, ctx context.Context, ch chan *jsonrpc.Response, want string) {
	t.Helper()
	select {
	case r := <-ch:
		if string(r.Result) != want {
			t.Fatalf("the answer: %s, want %s", r.Result, want)
		}
	case <-ctx.Done():
		t.Fatal("the answer never came")
	}
}
