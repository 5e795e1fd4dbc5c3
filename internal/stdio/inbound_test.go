package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/gather"
	"github.com/mcpbridge/mcpbridge/internal/idscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// recorder is a sink that keeps what it is given.
type recorder struct {
	delivered []jsonrpc.Message
	replies   []*jsonrpc.Response
	skipped   [][]byte
}

func (r *recorder) deliver(m jsonrpc.Message)    { r.delivered = append(r.delivered, m) }
func (r *recorder) reply(resp *jsonrpc.Response) { r.replies = append(r.replies, resp) }
func (r *recorder) skip(line []byte, _ error) {
	r.skipped = append(r.skipped, append([]byte(nil), line...))
}

func newInbound(input string, limit, bufSize int, s sink) *inbound {
	return newInboundFrom(strings.NewReader(input), limit, bufSize, s)
}

func newInboundFrom(r io.Reader, limit, bufSize int, s sink) *inbound {
	return &inbound{
		fr:     newFrameReader(r, limit, bufSize),
		limit:  limit,
		sink:   s,
		logger: slog.New(slog.DiscardHandler),
	}
}

// ids lists the ids of messages, "-" for one without.
func ids[M jsonrpc.Message](msgs []M) []string {
	var out []string
	for _, m := range msgs {
		var id jsonrpc.ID
		switch m := any(m).(type) {
		case *jsonrpc.Request:
			id = m.ID
		case *jsonrpc.Response:
			id = m.ID
		}
		if id.IsValid() {
			out = append(out, fmt.Sprint(id.Raw()))
		} else {
			out = append(out, "-")
		}
	}
	return out
}

// Every request of ours the server answers gets an answer, and every
// request of the server's an answer too, however bad the line.
func TestInboundAnswersEveryID(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","result":{"x":` + deep + `},"id":2}`, // too deep: id last
		`{"jsonrpc":"2.0","id":3,"error":"not an object"}`,
		`{"jsonrpc":"2.0","id":"s1","method":"ping","params":{,}}`, // the server's, broken
		`Starting server...`,
		`{"jsonrpc":"1.0","id":4,"result":1}`,             // not JSON-RPC 2.0: skipped
		`{"level":"info","id":5,"msg":"a JSON log line"}`, // nor this
		`[{"jsonrpc":"2.0","id":6,"result":1},{"jsonrpc":"2.0","id":7,"error":7},{"jsonrpc":"2.0","method":"n"}]`,
		`{"jsonrpc":"2.0","id":8,"result":"` + strings.Repeat("x", 60000) + `"}`, // over the limit
		"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":\"bad \xff utf-8\"}",
	}, "\n")
	t.Run("read whole", func(t *testing.T) {
		var rec recorder
		if err := run(newInbound(input, 50000, 64, &rec)); !errors.Is(err, io.EOF) {
			t.Fatalf("run = %v, want EOF", err)
		}
		checkEveryID(t, &rec)
	})
	// A caller's turn to read (Conn.Await) may end anywhere in a line,
	// an oversized one too: the next read goes on with it.
	t.Run("read in turns", func(t *testing.T) {
		var rec recorder
		yields := &yielding{r: strings.NewReader(input)}
		if err := run(newInboundFrom(yields, 50000, 64, &rec)); !errors.Is(err, io.EOF) {
			t.Fatalf("run = %v, want EOF", err)
		}
		if yields.n < 1000 {
			t.Fatalf("%d turns ended, want one every few bytes", yields.n)
		}
		checkEveryID(t, &rec)
	})
}

// run steps in until reading ends, each turn's end aside.
func run(in *inbound) error {
	for {
		if err := in.step(); err != nil && err != errYield {
			return err
		}
	}
}

// yielding reads a few bytes at a time, and ends a turn between reads.
type yielding struct {
	r     io.Reader
	n     int  // turns ended
	ended bool // the last read ended a turn
}

func (y *yielding) Read(p []byte) (int, error) {
	if !y.ended {
		y.ended = true
		y.n++
		return 0, errYield
	}
	y.ended = false
	return y.r.Read(p[:min(len(p), 1+y.n%7)])
}

func checkEveryID(t *testing.T, rec *recorder) {
	t.Helper()
	if got, want := strings.Join(ids(rec.delivered), ","), "1,2,3,6,7,-,8,9"; got != want {
		t.Errorf("delivered %s, want %s", got, want)
	}
	for _, m := range rec.delivered {
		r, ok := m.(*jsonrpc.Response)
		if !ok {
			continue
		}
		var we *jsonrpc.Error
		failed := errors.As(r.Error, &we)
		switch id := ids([]*jsonrpc.Response{r})[0]; id {
		case "2", "3", "7":
			if !failed || we.Code != jsonrpc.CodeParseError || !strings.Contains(we.Message, "could not be decoded") {
				t.Errorf("answer %s: error %v, want a parse error saying it could not be decoded", id, r.Error)
			}
		case "8":
			if !failed || !strings.Contains(we.Message, "line limit") {
				t.Errorf("answer 8: error %v, want the line limit", r.Error)
			}
		default:
			if r.Error != nil {
				t.Errorf("answer %s: error %v", id, r.Error)
			}
		}
	}
	if got := ids(rec.replies); len(got) != 1 || got[0] != "s1" || rec.replies[0].Error.(*jsonrpc.Error).Code != jsonrpc.CodeParseError {
		t.Errorf("replies %v, want a parse error to s1", got)
	}
	if len(rec.skipped) != 3 {
		t.Errorf("skipped %q, want the banner, the JSON-RPC 1.0 answer and the log line", rec.skipped)
	}
}

// FuzzInbound feeds the server's side of the wire arbitrary bytes: nothing
// may panic, no line is held beyond the limit, and every line that carries
// a JSON-RPC id gets exactly one answer with an id: the message, an error
// in its place, or a refusal to the server.
func FuzzInbound(f *testing.F) {
	deep := strings.Repeat("[", 11000)
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}`,
		`{"jsonrpc":"2.0","result":` + deep + strings.Repeat("]", 11000) + `,"id":2}`,
		`{"jsonrpc":"2.0","result":` + deep + `,"id":3}`,
		`{"jsonrpc":"2.0","id":"s","method":"m","params":{,}}` + "\r\n\r\n",
		`{"jsonrpc":"2.0","id":4,"result":"` + strings.Repeat("y", 600) + `"}`,
		`{"result":"` + strings.Repeat("z", 600) + `","jsonrpc":"2.0","method":"x","id":"big"}`,
		`[{"jsonrpc":"2.0","id":5,"result":1},{"jsonrpc":"2.0","id":6,"error":1},[],{}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"\xff\xfe\x80\"}\x00\n\x1b[2J",
		`{"jsonrpc":"2.0","id":1e400,"result":1}`,
		`{"jsonrpc":"2.0","id":1.5,"result":1}`,
		`{"jsonrpc":"2.0","\u0069d":8,"id":{},"result":1}`,
		`{"jsonrpc":"2.0","id":9,"id":10,"result":1} {"jsonrpc":"2.0","id":11,"result":1}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 300) + `","result":1}`,
		"Starting server...\n\n   \n[]\n[",
	} {
		f.Add([]byte(s))
	}
	const limit = 512
	f.Fuzz(func(t *testing.T, data []byte) {
		var rec recorder
		in := newInbound(string(data), limit, 16, &rec)
		for {
			line, over, err := in.fr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("next: %v", err)
				}
				return
			}
			// What a line over the limit leaves in the buffer is at most
			// the limit and one read; the buffer's start grows as append
			// grows a slice, to at most twice what it held.
			if len(line) > limit+1 || in.fr.buf.Cap() > 2*(limit+16) {
				t.Fatalf("a line of %d bytes held, buffer %d, past the %d-byte limit", len(line), in.fr.buf.Cap(), limit)
			}
			rec = recorder{}
			in.frame(line, over)
			if over == nil && strings.HasPrefix(strings.TrimLeft(string(line), " \t\r"), "[") {
				continue // a batch: one answer per message in it
			}
			answers := append(ids(rec.delivered), ids(rec.replies)...)
			if len(answers) > 1 {
				t.Fatalf("line %.80q: %d answers", line, len(answers))
			}
			var hasID bool
			if over != nil {
				hasID = over.hasID
			} else {
				var sc idscan.Scanner
				sc.Feed(line)
				_, hasID, _ = sc.Result()
				hasID = hasID && sc.IsJSONRPC()
			}
			if hasID && (len(answers) != 1 || answers[0] == "-") {
				t.Fatalf("line %.80q has an id but got answers %v", line, answers)
			}
		}
	})
}

// A line put together past the buffer kept for the next is the message's
// own: it is decoded where it lies, not copied once more; a line the reader
// uses again is copied (TestDecodeDoesNotAlias).
func TestALargeLineIsDecodedInPlace(t *testing.T) {
	for _, tc := range []struct {
		size  int
		owned bool
	}{{gather.Keep / 2, false}, {2 * gather.Keep, true}} {
		text := strings.Repeat("x", tc.size)
		var rec recorder
		in := newInbound(`{"jsonrpc":"2.0","id":1,"result":"`+text+`"}`+"\n", 4*gather.Keep, readBufferSize, &rec)
		line, over, err := in.fr.next()
		if err != nil || over != nil {
			t.Fatalf("%d bytes: %v, %+v", tc.size, err, over)
		}
		in.dec.owned = in.fr.owned
		in.frame(line, over)
		if len(rec.delivered) != 1 {
			t.Fatalf("%d bytes: %d messages delivered", tc.size, len(rec.delivered))
		}
		result := rec.delivered[0].(*jsonrpc.Response).Result
		if string(result) != `"`+text+`"` {
			t.Fatalf("%d bytes: the result is %.20q", tc.size, result)
		}
		line[bytes.IndexByte(line, 'x')] = 'Z' // what the reader may do with a line it keeps
		if aliased := result[1] == 'Z'; aliased != tc.owned {
			t.Errorf("%d bytes: the result lies in the line: %v; want %v", tc.size, aliased, tc.owned)
		}
	}
}
