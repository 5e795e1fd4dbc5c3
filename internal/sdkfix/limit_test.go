package sdkfix

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readAll reads r in reads of n bytes.
func readAll(r io.Reader, n int) (string, error) {
	var out strings.Builder
	buf := make([]byte, n)
	for {
		k, err := r.Read(buf)
		out.Write(buf[:k])
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
	}
}

// chunks returns at most n bytes per Read, as a network connection may.
type chunks struct {
	r io.Reader
	n int
}

func (c chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// An event over the limit gives way to an error event answering the same
// request, however the stream is cut; the events around it pass as they
// are, and a notification over the limit is dropped.
func TestEventStreamLimit(t *testing.T) {
	const limit = 64
	small := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
	long := strings.Repeat("x", 200)
	// The id last, after the bulk, on a second data line, lines ended by CRLF.
	over := "event: message\r\nid: 9\r\ndata: {\"result\":{\"text\":\"" + long + "\"},\r\ndata: \"jsonrpc\":\"2.0\",\"id\":\"two\"}\r\n\r\n"
	stream := small + over +
		": a comment\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"" + long + "\"}}\n\n" +
		small
	refusal := "event: message\ndata: " + string((&HTTPTap{Limit: limit, Logger: slog.New(slog.DiscardHandler)}).refusal(mustID("two"), int64(len(over)))) + "\n\n"
	want := small + refusal + ": a comment\n\n" + small
	for _, n := range []int{1, 2, 5, 7, 63, 64, 65, 4096} {
		for _, m := range []int{1, 3, 4096} {
			s := &eventStream{body: io.NopCloser(chunks{strings.NewReader(stream), n}), x: &HTTPTap{Limit: limit, Logger: slog.New(slog.DiscardHandler)}}
			got, err := readAll(s, m)
			if err != nil || got != want {
				t.Fatalf("body read %d, reader %d bytes at a time: %v\n%q\nwant\n%q", n, m, err, got, want)
			}
		}
	}
}

func mustID(v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		panic(err)
	}
	return id
}

// A JSON body whose length says it is over the limit is never read; one of
// unknown length is read up to the limit only.
func TestJSONBodyLimit(t *testing.T) {
	req, err := http.NewRequest(http.MethodPost, "http://example.invalid/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`))
	if err != nil {
		t.Fatal(err)
	}
	x := &HTTPTap{Limit: 16, Logger: slog.New(slog.DiscardHandler)}
	for _, length := range []int64{1 << 30, -1} {
		body := &counting{r: strings.NewReader(strings.Repeat("y", 1<<20))}
		resp := &http.Response{Body: io.NopCloser(body), ContentLength: length}
		x.boundJSON(req, resp, reader{})
		got, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Contains(got, []byte(`"id":4`)) || !bytes.Contains(got, []byte("16-byte size limit")) {
			t.Errorf("length %d: %s, %v; want an error answering id 4", length, got, err)
		}
		if body.n > 17 {
			t.Errorf("length %d: %d bytes read of a body over a 16-byte limit", length, body.n)
		}
	}
}

type counting struct {
	r io.Reader
	n int
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// FuzzEventStream checks the event stream's invariants on any input: what
// comes out does not depend on how the stream is cut into reads, and a
// stream whose events are all within the limit comes out as it went in.
func FuzzEventStream(f *testing.F) {
	for _, s := range []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"result\":\"" + strings.Repeat("x", 100) + "\",\r\ndata: \"id\":7}\r\n\r\n: ping\n\n",
		"data: {\"method\":\"m\",\"id\":\"s\",\"params\":\"" + strings.Repeat("y", 100) + "\"}\n\nid: 3\ndata: {}\n\n",
		"data: unterminated",
		"\n\n\r\n\ndata",
	} {
		f.Add(s, 40)
	}
	logger := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, stream string, limit int) {
		if limit < 0 || limit > 1<<16 {
			return
		}
		read := func(limit, n int) string {
			s := &eventStream{body: io.NopCloser(chunks{strings.NewReader(stream), n}), x: &HTTPTap{Limit: limit, Logger: logger}}
			out, err := readAll(s, 1+n%5)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		whole := read(limit, 4096)
		for _, n := range []int{1, 2, 3, 13} {
			if got := read(limit, n); got != whole {
				t.Fatalf("read %d bytes at a time: %q; at once: %q", n, got, whole)
			}
		}
		if got := read(len(stream), 7); got != stream {
			t.Fatalf("within the limit: %q came out as %q", stream, got)
		}
	})
}
