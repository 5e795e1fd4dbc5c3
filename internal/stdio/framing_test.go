package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func mustID(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// chunkReader returns at most n bytes per Read, as a pipe may.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("a", 100)
	input := "first\n\n  \r\n" + // blank lines are skipped
		long + "\n" + // 100: fits the limit exactly, spans bufio fills
		`{"id":5,"result":"` + long + `"}` + "\n" + // over the limit
		"second\r\n" +
		`{"result":"` + long + `"}` + "\n" + // over, without an id
		"last without newline"
	fr := newFrameReader(chunkReader{strings.NewReader(input), 7}, 100, 16)
	type item struct {
		line string
		over *oversized
	}
	var got []item
	for {
		line, over, err := fr.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, item{string(line), over})
	}
	want := []item{
		{"first\n", nil},
		{long + "\n", nil},
		{"", &oversized{size: int64(len(`{"id":5,"result":"` + long + `"}`)), id: mustID(float64(5)), hasID: true}},
		{"second\r\n", nil},
		{"", &oversized{size: int64(len(`{"result":"` + long + `"}`))}},
		{"last without newline", nil},
	}
	if !slices.EqualFunc(got, want, func(a, b item) bool {
		return a.line == b.line && (a.over == nil) == (b.over == nil) && (a.over == nil || *a.over == *b.over)
	}) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// Lines on both sides of the gathering's head and of a buffer it keeps,
// one after another and one over the limit among them, read back as
// written, each costing about its size to gather (a buffer grown as the
// bytes came cost five times it).
func TestFrameReaderLongLines(t *testing.T) {
	const limit = 3 << 20
	sizes := []int{readBufferSize - 1, readBufferSize, readBufferSize + 1, 5 * readBufferSize, keepBufferCap + 1, limit, 100, limit + 1, 2*keepBufferCap + 7, 10}
	var input strings.Builder
	for i, n := range sizes {
		input.WriteString(strings.Repeat(string(rune('a'+i)), n))
		input.WriteString("\n")
	}
	fr := newFrameReader(strings.NewReader(input.String()), limit, readBufferSize)
	for i, n := range sizes {
		var line []byte
		var over *oversized
		grew := allocated(t, func() {
			var err error
			if line, over, err = fr.next(); err != nil {
				t.Fatalf("line %d: %v", i, err)
			}
		})
		if n > limit {
			if over == nil || over.size != int64(n) {
				t.Fatalf("line %d of %d bytes over the %d-byte limit: got %d bytes, %+v", i, n, limit, len(line), over)
			}
		} else if over != nil || len(line) != n+1 || strings.Count(string(line), string(rune('a'+i))) != n {
			t.Fatalf("line %d: %d bytes (%+v); want %d", i, len(line), over, n+1)
		}
		// Twice the line at most: the pieces, when a line is the longest
		// yet, and the line put together.
		if grew > 2*uint64(n)+2*readBufferSize {
			t.Errorf("line %d of %d bytes allocated %d bytes to gather", i, n, grew)
		}
	}
}

// allocated returns the bytes f allocated.
func allocated(t *testing.T, f func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestFrameReaderNoLimit(t *testing.T) {
	long := strings.Repeat("b", 1000)
	fr := newFrameReader(strings.NewReader(long+"\n"), -1, 16)
	line, over, err := fr.next()
	if err != nil || over != nil || string(line) != long+"\n" {
		t.Errorf("got %d bytes, %v, %v", len(line), over, err)
	}
}

func TestDecode(t *testing.T) {
	var d decoder
	for _, tc := range []struct {
		line string
		want jsonrpc.Message // nil: an error
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":1}}`, &jsonrpc.Request{ID: mustID(float64(1)), Method: "tools/list", Params: json.RawMessage(`{"a":1}`)}},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, &jsonrpc.Request{Method: "notifications/x"}},
		{`{"jsonrpc":"2.0","id":"a","method":""}`, &jsonrpc.Request{ID: mustID("a")}},
		{`{"result":{"ok":true},"jsonrpc":"2.0","id":"s"}`, &jsonrpc.Response{ID: mustID("s"), Result: json.RawMessage(`{"ok":true}`)}},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}`, &jsonrpc.Response{ID: mustID(float64(2)), Error: &jsonrpc.Error{Code: -32601, Message: "nope"}}},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, nil},
		{`{"jsonrpc":"1.0","id":1,"result":1}`, nil},
		{`{"id":1,"result":1}`, nil},
		{`{"jsonrpc":"2.0","id":[1],"result":1}`, nil},
		{`not json`, nil},
		{`{"jsonrpc":"2.0","id":3,"result":1} {"jsonrpc":"2.0","id":4,"result":1}`, nil},
		{`{"jsonrpc":"2.0","id":3,"result":1}}`, nil},
		{"\t{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":[]} \r\n", &jsonrpc.Response{ID: mustID(float64(5)), Result: json.RawMessage(`[]`)}},
		{`{"jsonrpc":"2.0","method":"after/errors"}`, &jsonrpc.Request{Method: "after/errors"}},
	} {
		got, err := d.decode([]byte(tc.line))
		if tc.want == nil {
			if err == nil {
				t.Errorf("decode(%s) = %+v, want an error", tc.line, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("decode(%s): %v", tc.line, err)
			continue
		}
		gotJSON, _ := jsonrpc.EncodeMessage(got)
		wantJSON, _ := jsonrpc.EncodeMessage(tc.want)
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("decode(%s) = %s, want %s", tc.line, gotJSON, wantJSON)
		}
	}
}

// TestDecodeDoesNotAlias checks that decoded payloads survive the reuse of
// the line buffer and of the wire struct.
func TestDecodeDoesNotAlias(t *testing.T) {
	var d decoder
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"n":1}}`)
	m, err := d.decode(line)
	if err != nil {
		t.Fatal(err)
	}
	copy(line, bytes.Repeat([]byte("#"), len(line)))
	if _, err := d.decode([]byte(`{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)); err != nil {
		t.Fatal(err)
	}
	if got := string(m.(*jsonrpc.Response).Result); got != `{"n":1}` {
		t.Errorf("first result became %s", got)
	}
}

func TestEncode(t *testing.T) {
	e := newEncoder()
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Request{ID: mustID(float64(1)), Method: "tools/call", Params: json.RawMessage("{\n  \"q\": \"<a&b>\"\n}")},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Response{ID: mustID("x"), Result: json.RawMessage(`[1, 2]`)},
		&jsonrpc.Response{ID: mustID(float64(0)), Error: &jsonrpc.Error{Code: -32601, Message: "no"}},
		&jsonrpc.Response{ID: mustID(float64(3))},
	} {
		line, err := e.encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Errorf("encode(%+v) = %q: not one line", msg, line)
		}
		back, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Errorf("go-sdk cannot decode %s: %v", line, err)
			continue
		}
		want, _ := jsonrpc.EncodeMessage(msg)
		got, _ := jsonrpc.EncodeMessage(back)
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result == nil && resp.Error == nil {
			want = []byte(`{"jsonrpc":"2.0","id":3,"result":null}`)
			got = bytes.TrimSpace(line)
		}
		var cw, cg bytes.Buffer
		_ = json.Compact(&cw, want)
		_ = json.Compact(&cg, got)
		if cw.String() != cg.String() {
			t.Errorf("round trip: got %s, want %s", cg.String(), cw.String())
		}
	}
	if _, err := e.encode(&jsonrpc.Request{Method: "x", Params: json.RawMessage(`{bad`)}); err == nil {
		t.Error("encoding invalid params succeeded")
	}
}

func TestMinimalEnv(t *testing.T) {
	key := minimalEnvKeys[0]
	t.Setenv(key, "value-of-"+key)
	t.Setenv("STDIO_TEST_NOT_MINIMAL", "x")
	t.Setenv(minimalEnvKeys[1], "() { :; }; echo pwned")
	env := MinimalEnv()
	if !slices.Contains(env, key+"=value-of-"+key) {
		t.Errorf("MinimalEnv() = %q lacks %s", env, key)
	}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(minimalEnvKeys, name) {
			t.Errorf("MinimalEnv() has %s", kv)
		}
		if name == minimalEnvKeys[1] {
			t.Errorf("MinimalEnv() kept a shell function: %s", kv)
		}
	}
}

func TestBuildEnv(t *testing.T) {
	key := minimalEnvKeys[0]
	t.Setenv(key, "parent")
	env, err := buildEnv(map[string]string{key: "override", "B": "2", "A": "1"})
	if err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name == key || name == "A" || name == "B" {
			mine = append(mine, kv)
		}
	}
	if want := []string{"A=1", "B=2", key + "=override"}; !slices.Equal(mine, want) {
		t.Errorf("buildEnv = %q, want %q (sorted, overridden once)", mine, want)
	}
	for _, bad := range []string{"", "A=B", "A\x00"} {
		if _, err := buildEnv(map[string]string{bad: "v"}); err == nil {
			t.Errorf("buildEnv accepted name %q", bad)
		}
	}
	if _, err := buildEnv(map[string]string{"K": "secret\x00"}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("buildEnv with a NUL in a value: %v", err)
	}
}

// FuzzFramesInTurns holds a stream read in callers' turns, each read a few
// bytes and each turn ended by errYield anywhere in a line, to the frames
// of the same stream read whole: a turn's end loses nothing.
func FuzzFramesInTurns(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n{\"b\":2}\n",
		"\n\n  \n" + strings.Repeat("x", 100) + "\nshort\n" + strings.Repeat("y", 40) + "\n",
		`{"jsonrpc":"2.0","id":7,"result":"` + strings.Repeat("z", 200) + `"}` + "\nlast without a newline",
		strings.Repeat("w", 65) + "\n" + strings.Repeat("v", 64) + "\n",
	} {
		f.Add([]byte(s))
	}
	frames := func(r io.Reader) []string {
		fr := newFrameReader(r, 64, 16)
		var out []string
		for {
			line, over, err := fr.next()
			switch {
			case err == errYield:
				continue
			case err != nil:
				return append(out, "end: "+err.Error())
			case over != nil:
				out = append(out, fmt.Sprintf("over: %d %v %v %v", over.size, over.id.Raw(), over.hasID, over.isRequest))
			default:
				out = append(out, string(line))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		whole := frames(bytes.NewReader(data))
		turns := frames(&yielding{r: bytes.NewReader(data)})
		if !slices.Equal(whole, turns) {
			t.Fatalf("read in turns:\n%q\nread whole:\n%q", turns, whole)
		}
	})
}
