// Package rawjson reads JSON as it is written, without decoding it: the
// members of an object and a string's value, for a relay that passes most
// of a message on as it came and decodes only what it reads.
package rawjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Members calls fn with each member of the JSON object data, in order: its
// key and its value as written, without the space around it. It reports
// false, at the first, for data that is not an object, for a key with an
// escape or invalid UTF-8 (which decoding would rewrite, so that the key
// written is not the key read), and when fn returns false. data must be
// valid JSON ([json.Valid]); Members itself only finds the members' ends,
// and allocates nothing.
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
		key := data[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return false
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		end = skipValue(data, i)
		if !fn(key, data[i:end]) {
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
	if len(v) < 2 || v[0] != '"' {
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

// skipString returns the end of the string that starts at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the end of the valid JSON value that starts at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
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
		return i
	}
	// A number, true, false or null.
	for i < len(data) && data[i] != ',' && data[i] != '}' && data[i] != ']' &&
		data[i] != ' ' && data[i] != '\t' && data[i] != '\r' && data[i] != '\n' {
		i++
	}
	return i
}
