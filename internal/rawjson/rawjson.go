// Package rawjson reads JSON as it is written, without decoding it: the
// members of an object and a string's value, for a relay that passes most
// of a message on as it came and decodes only what it reads.
package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Members calls fn with each member of the JSON object data, in order: its
// key and its value as written, without the space around it. It reports
// false, at the first, for data that is not an object, for a key with an
// escape or invalid UTF-8 (which decoding would rewrite, so that the key
// written is not the key read), and when fn returns false. Members finds
// the members' ends without checking what lies between them, and
// allocates nothing: on data that is not valid JSON ([json.Valid]) it
// stops at the first thing out of place, or gives values that are not
// JSON either, never reading past the end.
func Members(data []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) && data[i] == '"' {
		end := skipString(data, i)
		if end < 0 {
			return false
		}
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		end = skipValue(data, i)
		if end < 0 || !fn(key, data[i:end]) {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ',' {
			return i < len(data) && data[i] == '}'
		}
		i = skipSpace(data, i+1)
	}
	return false
}

// String is the string the JSON value v holds, as json.Unmarshal reads
// it, and false for a value that is not a string.
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || skipString(v, 0) != len(v) {
		return "", false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the end of the string that starts at data[i], or -1
// if it does not end.
func skipString(data []byte, i int) int {
	// By the quotes, which bytes.IndexByte finds many bytes at a time: a
	// quote ends the string unless an odd run of backslashes escapes it.
	start := i
	for i++; ; i++ {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		i += q
		escapes := 0
		for j := i - 1; j > start && data[j] == '\\'; j-- {
			escapes++
		}
		if escapes%2 == 0 {
			return i + 1
		}
	}
}

// skipValue returns the end of the value that starts at data[i], or -1 if
// there is none or it does not end.
func skipValue(data []byte, i int) int {
	if i == len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				if i = skipString(data, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number, true, false or null.
	start := i
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' &&
		data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// Depth is how deep the JSON value data nests objects and arrays: 0 for a
// string, number or literal, 1 for {} or [1]. Brackets in strings are not
// counted; on data that is not valid JSON it counts the brackets it finds.
func Depth(data []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			if i = skipString(data, i); i < 0 {
				return most
			}
			i--
		case '{', '[':
			if depth++; depth > most {
				most = depth
			}
		case '}', ']':
			depth--
		}
	}
	return most
}

// Shape is how deep the JSON value data nests objects and arrays (as
// [Depth] counts it) and how many values it holds in all: each object,
// array, string, number and literal, the keys of members aside. It reads
// data once and allocates nothing, so that a bound on both can be put on a
// message before anything decodes it; on data that is not valid JSON it
// counts what it finds.
func Shape(data []byte) (depth, values int) {
	d := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			end := skipString(data, i)
			if end < 0 {
				return depth, values + 1
			}
			if j := skipSpace(data, end); j == len(data) || data[j] != ':' {
				values++
			}
			i = end - 1
		case c == '{' || c == '[':
			values++
			if d++; d > depth {
				depth = d
			}
		case c == '}' || c == ']':
			d--
		case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
			values++
			for i+1 < len(data) && !delimits(data[i+1]) {
				i++
			}
		}
	}
	return depth, values
}

// delimits reports whether c ends a number or a literal.
func delimits(c byte) bool {
	switch c {
	case ',', '}', ']', ':', '"', '{', '[', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// Elements calls fn with each element of the JSON array data, in order, as
// written, without the space around it. It reports false for data that is
// not an array, and when fn returns false; like [Members], it finds the
// elements' ends without checking what lies between them and allocates
// nothing.
func Elements(data []byte, fn func(value []byte) bool) bool {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '[' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return true
	}
	for i < len(data) {
		end := skipValue(data, i)
		if end < 0 || !fn(data[i:end]) {
			return false
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ',' {
			return i < len(data) && data[i] == ']'
		}
		i = skipSpace(data, i+1)
	}
	return false
}

// FloatsFit reports whether every number in the valid JSON value data is
// one a float64 holds, as json.Unmarshal into an any requires: false for
// 1e400, which it refuses.
func FloatsFit(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			if i = skipString(data, i); i < 0 {
				return true
			}
			i--
		case c == '-' || c >= '0' && c <= '9':
			end := skipValue(data, i)
			// Without an exponent, only a number of more than 308
			// digits is past a float64's range: the others need no
			// parse (nor the string it takes).
			num := data[i:end]
			if len(num) <= 308 && bytes.IndexAny(num, "eE") < 0 {
				i = end - 1
				continue
			}
			if _, err := strconv.ParseFloat(string(num), 64); err != nil {
				return false
			}
			i = end - 1
		}
	}
	return true
}
