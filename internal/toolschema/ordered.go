package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// A JSON value decoded with object key order kept: *object, []any, string,
// json.Number, bool or nil. map[string]any would lose the order of
// "properties", and models fill arguments in the order they are declared.
type object struct {
	members []member
}

type member struct {
	key string
	val any
}

func (o *object) get(k string) (any, bool) {
	for _, m := range o.members {
		if m.key == k {
			return m.val, true
		}
	}
	return nil, false
}

func (o *object) has(k string) bool { _, ok := o.get(k); return ok }

// set replaces the value of k in place, or appends k.
func (o *object) set(k string, v any) {
	for i := range o.members {
		if o.members[i].key == k {
			o.members[i].val = v
			return
		}
	}
	o.members = append(o.members, member{k, v})
}

func (o *object) del(k string) {
	for i := range o.members {
		if o.members[i].key == k {
			o.members = append(o.members[:i:i], o.members[i+1:]...)
			return
		}
	}
}

func (o *object) keys() []string {
	ks := make([]string, len(o.members))
	for i, m := range o.members {
		ks[i] = m.key
	}
	return ks
}

// clone copies o deeply enough that editing the copy never edits o.
func clone(v any) any {
	switch v := v.(type) {
	case *object:
		c := &object{members: make([]member, len(v.members))}
		for i, m := range v.members {
			c.members[i] = member{m.key, clone(m.val)}
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = clone(e)
		}
		return c
	}
	return v
}

// decodeOrdered parses one JSON value and rejects trailing data.
//
// JSON that json.Valid accepts, nearly all there is, is read by a
// validParser, at about an allocation a value; what it refuses, or what
// nests past maxDepth, by the token decoder, which says what is wrong and
// where.
func decodeOrdered(data []byte) (any, error) {
	if rawjson.Valid(data, maxDepth) {
		p := validParser{data: data}
		if v, ok := p.value(0); ok {
			return v, nil
		}
	}
	return decodeTokens(data)
}

// decodeTokens is decodeOrdered by encoding/json's tokens: slower, but
// with its errors.
func decodeTokens(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return v, nil
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 1000

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("invalid JSON: nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, fmt.Errorf("invalid JSON: %w", err)
				}
				k, _ := kt.(string)
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fmt.Errorf("invalid JSON: %w", err)
			}
			return a, nil
		}
		return nil, fmt.Errorf("invalid JSON: unexpected %v", t)
	default:
		return t, nil
	}
}

// A validParser parses JSON that json.Valid accepted into what decodeTokens
// returns for it, value for value. Strings are copied out of the input
// once, for all of them; a string with an escape or a byte that is not
// UTF-8 is unquoted by encoding/json, which decides how.
type validParser struct {
	data []byte
	text string // data as a string, made at the first string met
	i    int
}

// value parses the value at p.i, at nesting depth; ok is false past
// maxDepth, where decodeTokens says so.
func (p *validParser) value(depth int) (v any, ok bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.space()
	switch c := p.data[p.i]; c {
	case '{':
		p.i++
		o := &object{}
		for p.space(); p.data[p.i] != '}'; p.space() {
			if p.data[p.i] == ',' {
				p.i++
				p.space()
			}
			k := p.str()
			p.space()
			p.i++ // ':'
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			o.set(k, v)
		}
		p.i++
		return o, true
	case '[':
		p.i++
		a := []any{}
		for p.space(); p.data[p.i] != ']'; p.space() {
			if p.data[p.i] == ',' {
				p.i++
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		p.i++
		return a, true
	case '"':
		return p.str(), true
	case 't':
		p.i += len("true")
		return true, true
	case 'f':
		p.i += len("false")
		return false, true
	case 'n':
		p.i += len("null")
		return nil, true
	}
	start := p.i
	for p.i < len(p.data) && strings.IndexByte("+-.0123456789eE", p.data[p.i]) >= 0 {
		p.i++
	}
	return json.Number(p.data[start:p.i]), true
}

// str parses the string at p.i.
func (p *validParser) str() string {
	start := p.i
	plain := true
	for p.i++; p.data[p.i] != '"'; p.i++ {
		switch c := p.data[p.i]; {
		case c == '\\':
			plain = false
			p.i++ // the escaped byte, which may be a quote
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	p.i++
	raw := p.data[start:p.i]
	if !plain && (bytes.IndexByte(raw, '\\') >= 0 || !utf8.Valid(raw)) {
		var s string
		_ = json.Unmarshal(raw, &s) // valid JSON: a string always unquotes
		return s
	}
	if p.text == "" {
		p.text = string(p.data)
	}
	return p.text[start+1 : p.i-1]
}

// space skips white space.
func (p *validParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// encodeOrdered writes v compactly, keys in their kept order.
func encodeOrdered(v any) json.RawMessage {
	var b bytes.Buffer
	writeValue(&b, v)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			writeValue(b, m.val)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
		b.WriteString("null")
	default:
		// Only values built by this package reach here.
		panic(fmt.Sprintf("schema: cannot encode %T", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode adds a newline
}

// typeNames returns the "type" keyword of o as a list: nil when absent or
// malformed.
func typeNames(o *object) []string {
	v, ok := o.get("type")
	if !ok {
		return nil
	}
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var ts []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				ts = append(ts, s)
			}
		}
		return ts
	}
	return nil
}

// pointerJoin appends one reference token to a JSON pointer (RFC 6901).
func pointerJoin(ptr, tok string) string {
	tok = strings.ReplaceAll(tok, "~", "~0")
	tok = strings.ReplaceAll(tok, "/", "~1")
	return ptr + "/" + tok
}

// resolvePointer finds the value at a JSON pointer fragment ("" or "/a/b")
// inside root.
func resolvePointer(root any, ptr string) (any, bool) {
	toks, ok := pointerTokens(ptr)
	if !ok {
		return nil, false
	}
	return resolveTokens(root, toks)
}

// pointerTokens splits a JSON pointer into its reference tokens, unescaped.
func pointerTokens(ptr string) ([]string, bool) {
	if ptr == "" {
		return nil, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		tok = strings.ReplaceAll(tok, "~1", "/")
		toks[i] = strings.ReplaceAll(tok, "~0", "~")
	}
	return toks, true
}

// resolveTokens finds the value at the pointer of toks inside root.
func resolveTokens(root any, toks []string) (any, bool) {
	cur := root
	for _, tok := range toks {
		switch c := cur.(type) {
		case *object:
			v, ok := c.get(tok)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonSize returns about the length of v written as JSON, or a number over
// limit as soon as it passes it.
func jsonSize(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch v := v.(type) {
		case *object:
			n += 2
			for _, m := range v.members {
				n += len(m.key) + 4
				walk(m.val)
			}
		case []any:
			n += 2
			for _, e := range v {
				n++
				walk(e)
			}
		case string:
			n += len(v) + 2
		case json.Number:
			n += len(v)
		default:
			n += 5
		}
	}
	walk(v)
	return n
}

func itoa(i int) string { return strconv.Itoa(i) }
