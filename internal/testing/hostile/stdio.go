package hostile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"
)

// StuckFileEnv, if set, names a file that a server which stops reading
// stdin (mode "deaf") creates once its stdin pipe is full: from then on a
// client writing to it is blocked, which is what a test of that wants to
// wait for. Only a subprocess on Linux can tell; elsewhere the file never
// appears.
const StuckFileEnv = "MCPBRIDGE_HOSTILE_STUCKFILE"

// Banner is the first line the modes that write what is not JSON-RPC to
// stdout write: text and, after it, terminal escapes (a window title, a
// clear screen) that must never reach a user's terminal.
const Banner = "Starting server on port 3000..."

// deaf answers until it has answered tools/list, then never reads stdin
// again, like a server wedged in a busy loop or a deadlock. It never
// returns: as a subprocess it ends with a signal, so it is no use in
// process.
func deaf(s *Server, r io.Reader, w io.Writer) error {
	untilListed(s, r, w)
	if stuck := os.Getenv(StuckFileEnv); stuck != "" {
		untilFull(r)
		os.WriteFile(stuck, nil, 0o600)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// deafAsking is deaf, and once its stdin pipe is full sends the client
// requests it cannot decode, each of which wants an answer the server will
// not read.
func deafAsking(s *Server, r io.Reader, w io.Writer) error {
	untilListed(s, r, w)
	untilFull(r)
	for i := range DeafAsks {
		s.write(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":"ask-%d","method":"ping","params":{,}}`, i))
	}
	for {
		time.Sleep(time.Hour)
	}
}

// DeafAsks is how many requests "deaf-asking" sends.
const DeafAsks = 40

// untilListed answers requests until it has answered tools/list.
func untilListed(s *Server, r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for s.Count("tools/list") == 0 && sc.Scan() {
		if reply, ok := s.Handle(sc.Bytes()); ok {
			s.write(w, reply)
		}
	}
}

// untilFull returns once r is a full pipe: a client writing to it is then
// blocked. Elsewhere than on Linux it never returns.
func untilFull(r io.Reader) {
	for !pipeFull(r) {
		time.Sleep(10 * time.Millisecond)
	}
}

// notJSON writes a banner to stdout instead of JSON-RPC, then reads
// requests and answers none, as an HTTP server started by mistake as a
// stdio one does.
func notJSON(s *Server, r io.Reader, w io.Writer) error {
	s.write(w, Banner+"\x1b]0;pwned\x07\x1b[2J")
	s.write(w, "Press Ctrl-C to stop")
	_, err := io.Copy(io.Discard, r)
	return err
}

// flood writes lines that are not JSON-RPC to stdout until it cannot, and
// answers nothing.
func flood(s *Server, _ io.Reader, w io.Writer) error {
	for i := 0; ; i++ {
		if _, err := fmt.Fprintf(w, "%s log line %d\x1b[2K\n", Banner, i); err != nil {
			return err
		}
	}
}

// banner writes a few lines that are not JSON-RPC, as many servers do as
// they start, then behaves well.
func banner(s *Server, r io.Reader, w io.Writer) error {
	s.write(w, Banner)
	s.write(w, "")
	s.write(w, `{"level":"info","msg":"listening on stdio"}`)
	return s.lines(r, w)
}
