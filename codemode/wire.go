package codemode

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// A message goes between a run's host (the goroutine of Run, which holds
// the tools, the console and the budgets) and its interpreter (QuickJS,
// on a goroutine of this process or in a process of its own). The host
// sends start, then a result for each call; the interpreter sends call,
// print, done and wait as the script goes, and end once.
type message struct {
	Kind kind `json:"kind"`
	// ID is a call's (call, result); for wait, how many results the
	// interpreter has taken.
	ID int `json:"id,omitempty"`
	// Index is a call's tool, by its index in the API; -1: by Name
	// (callTool).
	Index int `json:"index,omitempty"`
	// Name is a call's tool, as the script named it.
	Name string `json:"name,omitempty"`
	// Data says a call asks for its images' bytes (base64).
	Data bool `json:"data,omitempty"`
	// OK says a call succeeded (result), the script returned (done).
	OK bool `json:"ok,omitempty"`
	// Text says a result's Body is its value itself, a string, not JSON.
	Text bool `json:"text,omitempty"`
	// Images are the host's ids of images: of the image parts of a
	// result's value, in order; of those the script returned (done).
	Images []int `json:"images,omitempty"`
	// Size is the length of the value the script returned (done), which
	// Body holds only if it is within the output budget.
	Size int `json:"size,omitempty"`
	// Thrown is what the script threw (done, end).
	Thrown *thrownError `json:"thrown,omitempty"`
	// Budget names the budget the interpreter stopped the script at
	// (end): "CPUTime" or "Memory".
	Budget string `json:"budget,omitempty"`
	// Failure says why the interpreter failed (end), not the script.
	Failure string `json:"failure,omitempty"`
	// Start is the run's script and what the interpreter needs (start).
	Start *startParams `json:"start,omitempty"`

	// Body is the bulk, sent after the rest as it is: a call's arguments
	// (JSON), a result's value (JSON), a line of console output, the
	// value the script returned (JSON), the script (start).
	Body string `json:"-"`
}

type kind string

// The kinds of message.
const (
	kindStart  kind = "start"
	kindResult kind = "result"
	kindCall   kind = "call"
	kindPrint  kind = "print"
	kindDone   kind = "done"
	kindWait   kind = "wait"
	kindEnd    kind = "end"
)

// thrownError is a [ScriptError] as the interpreter reports it.
type thrownError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
	Tool    string `json:"tool,omitempty"`
}

// startParams are what the interpreter of a run is given: the API's
// manifest and its budgets, the script being the start message's Body.
type startParams struct {
	Manifest  json.RawMessage `json:"manifest"`
	Memory    int             `json:"memory"`
	CPUTime   time.Duration   `json:"cpu"`
	Timeout   time.Duration   `json:"timeout"`
	MaxOutput int             `json:"maxOutput"`
	MaxCalls  int             `json:"maxCalls"`
	// Results is the budget of results: what the host sends past the
	// script is at most that.
	Results int `json:"results"`
	// MaxName bounds the tool name a call may carry (Runtime.maxName).
	MaxName int `json:"maxName"`
}

// maxCallName is the least bound of the tool name a script's call may
// carry, and what is shown of a name in an error: the MCP specification
// gives a tool 128 bytes, but a set may hold longer names, which the bound
// grows to (Runtime.maxName) so that every tool declared can be called.
const maxCallName = 1 << 10

// maxStack bounds the stack of an error, in bytes.
const maxStack = 4096

// maxReturnedImages bounds the images a script's value may carry to the
// model: each is an image of a result, which the budget of results
// bounds in bytes.
const maxReturnedImages = 64

// A frame is a message on a pipe: the lengths of its header (the
// message as JSON) and of its body, 4 bytes each, big-endian, then both.
const frameHead = 8

// writeMessage writes m as a frame. The body goes as it is, without a
// copy.
func writeMessage(w io.Writer, m *message) error {
	header, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if len(header) > maxFrameLen || len(m.Body) > maxFrameLen {
		return fmt.Errorf("a message of %d bytes", len(header)+len(m.Body))
	}
	buf := make([]byte, frameHead, frameHead+len(header))
	binary.BigEndian.PutUint32(buf, uint32(len(header)))
	binary.BigEndian.PutUint32(buf[4:], uint32(len(m.Body)))
	if _, err := w.Write(append(buf, header...)); err != nil {
		return err
	}
	_, err = io.WriteString(w, m.Body)
	return err
}

// maxFrameLen bounds a frame's header and body each, whoever sends it.
const maxFrameLen = 1 << 30

// errFrameTooLarge says a frame passed the bound its reader set.
var errFrameTooLarge = errors.New("a message over its bound")

// readMessage reads a frame whose header and body together are at most
// limit bytes: the body into one string, the only copy the reader makes.
func readMessage(r *bufio.Reader, limit int) (*message, error) {
	var head [frameHead]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	hn, bn := int64(binary.BigEndian.Uint32(head[:])), int64(binary.BigEndian.Uint32(head[4:]))
	if hn+bn > int64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", errFrameTooLarge, hn+bn, limit)
	}
	header := make([]byte, hn)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, noEOF(err)
	}
	m := &message{}
	if err := json.Unmarshal(header, m); err != nil {
		return nil, fmt.Errorf("a message that is not one: %w", err)
	}
	var body strings.Builder
	body.Grow(int(bn))
	if _, err := io.CopyN(&body, r, bn); err != nil {
		return nil, noEOF(err)
	}
	m.Body = body.String()
	return m, nil
}

// noEOF is err, an end of input inside a frame being a cut one.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// errHostGone is what an interpreter's port says once the host stopped
// waiting for it.
var errHostGone = errors.New("the host stopped the script")
