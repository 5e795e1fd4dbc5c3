// Package idscan finds the id of a JSON-RPC message that streams by in
// pieces, without keeping the message. It serves the transports that
// discard a message, over their size limit (a stdio line, a server-sent
// event) or undecodable, yet must still fail the request it answers.
package idscan

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Scanner finds the top-level "id" member of a JSON object fed to it in
// pieces, without keeping the object. It exists for oversized messages: the
// bytes are being discarded as they stream by, yet the id is needed to fail
// the request they answer. The id may come anywhere, even after a "result"
// of many megabytes (the TypeScript SDK writes {"result":...,"jsonrpc":"2.0",
// "id":3}), and "id" members of nested objects or text inside strings must
// not be mistaken for it, hence the string/escape state and nesting depth.
//
// It also notes a top-level string "method", which marks the message as a
// request from the server rather than a response, and a top-level
// "jsonrpc":"2.0", which marks it as JSON-RPC.
type Scanner struct {
	state    scanState
	depth    int  // nesting depth in sNested; 1 is the top-level object
	inString bool // inside a string; role says what it is
	escaped  bool // the previous byte was a backslash inside a string
	role     strRole
	key      memberKey // the member whose value comes next
	buf      []byte    // the key, or the id's value, being read
	bufLong  bool      // buf hit maxScanToken: not an id, nor "id"/"method"

	id         jsonrpc.ID
	hasID      bool
	hasMethod  bool
	hasVersion bool
}

type scanState uint8

const (
	sBegin  scanState = iota // before the opening '{'
	sKey                     // expecting a member name, ',' or '}'
	sColon                   // after a member name
	sValue                   // expecting a member value
	sAfter                   // after a member value: ',' or '}'
	sNested                  // inside an object or array value
	sScalar                  // inside a literal or a number not of interest
	sNumber                  // inside the numeric value of "id"
	sDone                    // the top-level object ended, or this is not one
)

type strRole uint8

const (
	roleSkip strRole = iota
	roleKey
	roleID
	roleVersion
)

type memberKey uint8

const (
	keyOther memberKey = iota
	keyID
	keyMethod
	keyVersion
)

// maxScanToken bounds the bytes kept of a member name or an id value. Ids
// and the names of interest are short; anything longer is not one of them
// and need not be kept.
const maxScanToken = 256

// Feed scans the next piece of the message.
func (s *Scanner) Feed(p []byte) {
	for i := 0; i < len(p); i++ {
		if s.state == sDone {
			return
		}
		if s.inString && s.role == roleSkip && !s.escaped {
			// The bulk of an oversized message is string content (base64
			// images, file text): jump to the next byte that can matter.
			j := bytes.IndexAny(p[i:], `"\`)
			if j < 0 {
				return
			}
			i += j
		}
		s.step(p[i])
	}
}

// Result reports the top-level id, if the message had a number or string
// one, and whether it had a top-level string "method".
func (s *Scanner) Result() (id jsonrpc.ID, ok, isRequest bool) {
	return s.id, s.hasID, s.hasMethod
}

// IsJSONRPC reports whether the message had a top-level "jsonrpc":"2.0".
func (s *Scanner) IsJSONRPC() bool { return s.hasVersion }

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

func (s *Scanner) step(b byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case b == '\\':
			s.escaped = true
		case b == '"':
			s.inString = false
			s.endString()
			return
		}
		s.keep(b)
		return
	}
	switch s.state {
	case sBegin:
		switch {
		case b == '{':
			s.state = sKey
		case !isSpace(b):
			s.state = sDone // an array (batch) or junk: no single id
		}
	case sKey:
		switch {
		case b == '"':
			s.startString(roleKey)
			s.state = sColon
		case b == '}':
			s.state = sDone
		case b != ',' && !isSpace(b):
			s.state = sDone
		}
	case sColon:
		switch {
		case b == ':':
			s.state = sValue
		case !isSpace(b):
			s.state = sDone
		}
	case sValue:
		s.startValue(b)
	case sAfter:
		switch {
		case b == ',':
			s.state = sKey
		case b == '}':
			s.state = sDone
		case !isSpace(b):
			s.state = sDone
		}
	case sNested:
		switch b {
		case '"':
			s.startString(roleSkip)
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
			if s.depth == 1 {
				s.state = sAfter
			}
		}
	case sScalar:
		switch {
		case b == ',':
			s.state = sKey
		case b == '}':
			s.state = sDone
		case isSpace(b):
			s.state = sAfter
		}
	case sNumber:
		if b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E' {
			s.keep(b)
			return
		}
		if f, err := strconv.ParseFloat(string(s.buf), 64); err == nil && !s.bufLong {
			s.setID(f)
		}
		s.state = sAfter
		s.step(b)
	}
}

func (s *Scanner) startValue(b byte) {
	if isSpace(b) {
		return
	}
	wantID := s.key == keyID && !s.hasID
	if s.key == keyVersion {
		s.hasVersion = false // until the string's end says otherwise
	}
	switch {
	case b == '"':
		s.hasMethod = s.hasMethod || s.key == keyMethod
		switch {
		case wantID:
			s.startString(roleID)
		case s.key == keyVersion:
			s.startString(roleVersion)
		default:
			s.startString(roleSkip)
		}
		s.state = sAfter
	case b == '{' || b == '[':
		s.depth = 2
		s.state = sNested
	case wantID && (b == '-' || b >= '0' && b <= '9'):
		s.buf, s.bufLong = s.buf[:0], false
		s.keep(b)
		s.state = sNumber
	default:
		s.state = sScalar
	}
}

func (s *Scanner) startString(r strRole) {
	s.inString, s.escaped, s.role = true, false, r
	s.buf, s.bufLong = s.buf[:0], false
}

// keep records a byte of a member name or of the id.
func (s *Scanner) keep(b byte) {
	if s.role == roleSkip && s.state != sNumber {
		return
	}
	if len(s.buf) >= maxScanToken {
		s.bufLong = true
		return
	}
	s.buf = append(s.buf, b)
}

func (s *Scanner) endString() {
	switch s.role {
	case roleKey:
		s.key = keyOther
		if s.bufLong {
			return
		}
		name := s.buf
		if bytes.IndexByte(name, '\\') >= 0 {
			// Escaped names are legal JSON ("\u0069d" is "id"); rare
			// enough to decode the slow way.
			var str string
			if json.Unmarshal(quote(name), &str) != nil {
				return
			}
			name = []byte(str)
		}
		switch string(name) {
		case "id":
			s.key = keyID
		case "method":
			s.key = keyMethod
		case "jsonrpc":
			s.key = keyVersion
		}
	case roleID:
		var str string
		if !s.bufLong && json.Unmarshal(quote(s.buf), &str) == nil {
			s.setID(str)
		}
	case roleVersion:
		// Written plainly by every implementation; an escaped "2.0" is not
		// worth decoding.
		s.hasVersion = string(s.buf) == "2.0"
	}
}

func (s *Scanner) setID(v any) {
	if id, err := jsonrpc.MakeID(v); err == nil && id.IsValid() {
		s.id, s.hasID = id, true
	}
}

// quote wraps the raw contents of a JSON string in quotes again.
func quote(raw []byte) []byte {
	q := make([]byte, 0, len(raw)+2)
	q = append(q, '"')
	q = append(q, raw...)
	return append(q, '"')
}
