package rawjson

import "encoding/binary"

// Valid reports whether data is one JSON value, white space around it
// allowed, as [json.Valid] does, that nests objects and arrays no deeper
// than maxDepth (as [Depth] counts). json.Valid refuses nesting past
// 10,000 levels, and so does Valid, whatever maxDepth: a negative one is
// json.Valid's bound. It
// reads data once and allocates nothing below 64 levels: json.Valid, by
// a function call a byte, costs several times as much on what a relay
// passes on, a large string above all, and [Depth] would be a second
// pass. FuzzValid holds it to json.Valid.
func Valid(data []byte, maxDepth int) bool {
	if maxDepth < 0 || maxDepth > jsonMaxDepth {
		maxDepth = jsonMaxDepth
	}
	var stack [64]byte
	open := stack[:0] // '{' or '[' for each object or array open
	i := skipSpace(data, 0)
	for {
		// A value starts at i.
		if i == len(data) {
			return false
		}
		switch c := data[i]; c {
		case '{', '[':
			if len(open) >= maxDepth {
				return false
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' or ']'
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				if i = validKey(data, i); i < 0 {
					return false
				}
			}
			continue
		case '"':
			i = validString(data, i)
		case 't':
			i = literal(data, i, "true")
		case 'f':
			i = literal(data, i, "false")
		case 'n':
			i = literal(data, i, "null")
		default:
			i = validNumber(data, i)
		}
		if i < 0 {
			return false
		}
		// A value ends at i: so may the objects and arrays around it.
		for {
			i = skipSpace(data, i)
			if len(open) == 0 {
				return i == len(data)
			}
			if i == len(data) {
				return false
			}
			top := open[len(open)-1]
			if data[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return false
			}
			i = skipSpace(data, i+1)
			if top == '{' {
				if i = validKey(data, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// jsonMaxDepth is the nesting encoding/json's scanner refuses past.
const jsonMaxDepth = 10000

// validKey returns where the value of the member whose key starts at
// data[i] starts, or -1 if the key or its colon is not there.
func validKey(data []byte, i int) int {
	if i == len(data) || data[i] != '"' {
		return -1
	}
	if i = validString(data, i); i < 0 {
		return -1
	}
	i = skipSpace(data, i)
	if i == len(data) || data[i] != ':' {
		return -1
	}
	return skipSpace(data, i+1)
}

// validString returns the end of the valid string that starts at data[i],
// or -1. As json.Valid, it takes any bytes but the quote, the backslash
// and control characters as they are, invalid UTF-8 included.
func validString(data []byte, i int) int {
	for i++; i < len(data); {
		// Eight bytes at a time while none of them needs a look.
		for i+8 <= len(data) && plain8(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 == len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !hex4(data[i+2:i+6]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		default:
			i++
		}
	}
	return -1
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of x is a quote, a
// backslash or a control character: the bit tricks of "Bit Twiddling
// Hacks" (haszero, hasless), which may report a byte that is none of them
// (never the other way), costing a look at it one at a time.
func plain8(x uint64) bool {
	quote := x ^ ('"' * ones)
	slash := x ^ ('\\' * ones)
	found := (quote - ones) &^ quote
	found |= (slash - ones) &^ slash
	found |= (x - 0x20*ones) &^ x
	return found&highs == 0
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// literal returns the end of word, if it starts at data[i], or -1.
func literal(data []byte, i int, word string) int {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// validNumber returns the end of the number that starts at data[i], or -1:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i == len(data):
		return -1
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i = digits(data, i+1); i < 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		return digits(data, i)
	}
	return i
}

// digits returns the end of the one or more digits at data[i], or -1.
func digits(data []byte, i int) int {
	start := i
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
