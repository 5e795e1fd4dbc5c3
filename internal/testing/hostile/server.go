package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"sync"
)

// A Request is one JSON-RPC message the server read.
type Request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports whether r expects no answer.
func (r *Request) IsNotification() bool { return len(r.ID) == 0 }

// A mode is one way of misbehaving. answer is asked first about every
// request and may answer it (handled), or leave it to the well-behaved
// default; serve, if set, replaces the whole line loop, for misbehaviour
// below JSON-RPC (a server that stops reading, say); stderr, if set, is a
// line a server process writes to its stderr as it starts; http, if set,
// replaces [Server.Handler], for misbehaviour at the HTTP level.
type mode struct {
	doc    string
	answer func(s *Server, req *Request) (reply string, handled bool)
	serve  func(s *Server, r io.Reader, w io.Writer) error
	stderr string
	http   func(s *Server) http.Handler
}

// on returns a mode's answer that answers every request for method with
// the reply of answer, and leaves the others to the well-behaved default.
func on(method string, answer func(req *Request) string) func(*Server, *Request) (string, bool) {
	return func(_ *Server, req *Request) (string, bool) {
		if req.Method != method {
			return "", false
		}
		return answer(req), true
	}
}

// Modes returns the name and a one-line description of every mode, sorted
// by name.
func Modes() map[string]string {
	out := make(map[string]string, len(modes))
	for name, m := range modes {
		out[name] = m.doc
	}
	return out
}

// ModeNames returns the names of every mode, sorted.
func ModeNames() []string { return slices.Sorted(maps.Keys(modes)) }

// A Server is one hostile server in one mode. It counts the requests it
// reads by method, so a test can check what a client sent.
type Server struct {
	mode *mode

	mu        sync.Mutex
	counts    map[string]int
	elsewhere string
	wmu       sync.Mutex
}

// New returns a server in the named mode, or an error naming the modes
// there are.
func New(name string) (*Server, error) {
	m, ok := modes[name]
	if !ok {
		return nil, fmt.Errorf("hostile: no mode %q (there are %v)", name, ModeNames())
	}
	return &Server{mode: &m, counts: map[string]int{}}, nil
}

// Count returns how many requests or notifications of method the server
// has read.
func (s *Server) Count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// Serve answers the requests read from r on w until r ends.
func (s *Server) Serve(r io.Reader, w io.Writer) error {
	if s.mode.serve != nil {
		return s.mode.serve(s, r, w)
	}
	return s.lines(r, w)
}

// lines is the well-behaved line loop: one message per line, each answered
// as Handle says.
func (s *Server) lines(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		reply, ok := s.Handle(sc.Bytes())
		if ok {
			s.write(w, reply)
		}
	}
	return sc.Err()
}

// write writes one line; answers from several goroutines never interleave.
func (s *Server) write(w io.Writer, line string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	io.WriteString(w, line+"\n")
}

// Handle answers one message, as the line loop and the HTTP handler do:
// reply is the answer's JSON, and ok is false when there is none (a
// notification, or a request the mode leaves unanswered).
func (s *Server) Handle(line []byte) (reply string, ok bool) {
	var req Request
	if json.Unmarshal(line, &req) != nil {
		return "", false
	}
	s.count(req.Method)
	if s.mode.answer != nil {
		if reply, handled := s.mode.answer(s, &req); handled {
			return reply, reply != ""
		}
	}
	if req.IsNotification() {
		return "", false
	}
	return wellBehaved(&req), true
}

// SetElsewhere sets the base URL (scheme and host) of another origin,
// where the modes that send a client away send it.
func (s *Server) SetElsewhere(base string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elsewhere = base
}

func (s *Server) elsewhereURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.elsewhere
}

func (s *Server) count(method string) {
	s.mu.Lock()
	s.counts[method]++
	s.mu.Unlock()
}

// Result is the JSON-RPC answer to id with result v (a json.RawMessage is
// sent as it is).
func Result(id json.RawMessage, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // a mode's own table: a bug in this package
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, data)
}

// Error is the JSON-RPC error answer to id.
func Error(id json.RawMessage, code int, msg string) string {
	m, _ := json.Marshal(msg) // not %q: Go's escapes are not all JSON's
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m)
}

// Text is a tools/call result of one text part.
func Text(id json.RawMessage, text string) string {
	return Result(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
}

// CallParams decodes the parameters of a tools/call.
func CallParams(req *Request) (name string, args map[string]any) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	json.Unmarshal(req.Params, &p)
	return p.Name, p.Arguments
}

// Echo is a well-behaved tool: it answers its text argument.
var Echo = map[string]any{
	"name":        "echo",
	"description": "Echoes its text.",
	"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
}

// Flaky is read-only, so safe to send again; its first call kills the
// server when [MarkerEnv] names a file that does not exist yet.
var Flaky = map[string]any{
	"name":        "flaky",
	"inputSchema": map[string]any{"type": "object"},
	"annotations": map[string]any{"readOnlyHint": true},
}

// InitializeResult is what a well-behaved server answers to initialize.
func InitializeResult(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities": map[string]any{
			"tools":      map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/skills": map[string]any{}},
		},
		"serverInfo": map[string]any{"name": "hostile", "version": "1.0"},
	}
}
