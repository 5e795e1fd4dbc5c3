// Package wire reads and writes JSON-RPC messages as go-sdk's jsonrpc
// package does, but without its decoder, which costs a buffer of 32 KB a
// message whatever its size: for the transports of mcpbridge's own
// (internal/stdio, internal/streamable), under go-sdk's sessions.
package wire

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// Decode reads one JSON-RPC message as go-sdk's jsonrpc.DecodeMessage
// does, but without go-sdk's decoder, which costs a buffer of 32 KB a
// message whatever its size: the envelope's members are read where they
// are written, and the params and result are slices of data, which the
// message keeps (the caller hands over data, a copy of its own). What it
// does not read itself (an escaped member name, an id or method of
// another type, an error with members it does not know, JSON that is not
// valid) it hands to go-sdk, so that the answer, message or error, is
// go-sdk's. TestDecodeAgreesWithGoSDK and FuzzDecode hold it to go-sdk.
func Decode(data []byte) (jsonrpc.Message, error) {
	if m, ok := decodeEnvelope(data); ok {
		return m, nil
	}
	return jsonrpc.DecodeMessage(data)
}

// decodeEnvelope is [Decode] for the messages it reads itself.
func decodeEnvelope(data []byte) (jsonrpc.Message, bool) {
	// go-sdk refuses what is not JSON, and nesting over 1000 levels.
	if !rawjson.Valid(data, 1000) {
		return nil, false
	}
	var version, id, method, params, result, wireErr []byte
	if !rawjson.Members(data, func(k, v []byte) bool {
		switch string(k) {
		case "jsonrpc":
			version = v
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		case "result":
			result = v
		case "error":
			wireErr = v
		}
		return true
	}) || string(version) != `"2.0"` {
		return nil, false
	}
	mid, ok := idOf(id)
	if !ok {
		return nil, false
	}
	if method != nil {
		name, ok := rawjson.String(method)
		if !ok {
			return nil, false
		}
		return &jsonrpc.Request{ID: mid, Method: name, Params: json.RawMessage(params)}, true
	}
	if !mid.IsValid() {
		return nil, false
	}
	resp := &jsonrpc.Response{ID: mid, Result: json.RawMessage(result)}
	if wireErr != nil && string(wireErr) != "null" {
		e, ok := errorOf(wireErr)
		if !ok {
			return nil, false
		}
		resp.Error = e
	}
	return resp, true
}

// idOf reads an id as go-sdk does: a number (as a float64, truncated to
// an integer), a string, or none (absent or null).
func idOf(v []byte) (jsonrpc.ID, bool) {
	switch {
	case v == nil || string(v) == "null":
		return jsonrpc.ID{}, true
	case v[0] == '"':
		s, ok := rawjson.String(v)
		if !ok {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	case v[0] == '-' || '0' <= v[0] && v[0] <= '9':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(f)
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}

// errorOf reads a JSON-RPC error object whose members are those go-sdk
// knows, each of its type: an integer code, a string message, any data.
func errorOf(v []byte) (*jsonrpc.Error, bool) {
	e := new(jsonrpc.Error)
	var code, message, data []byte
	if !rawjson.Members(v, func(k, val []byte) bool {
		switch string(k) {
		case "code":
			code = val
		case "message":
			message = val
		case "data":
			data = val
		default:
			return false
		}
		return true
	}) {
		return nil, false
	}
	if code != nil {
		n, err := strconv.ParseInt(string(code), 10, 64)
		if err != nil {
			return nil, false
		}
		e.Code = n
	}
	if message != nil {
		s, ok := rawjson.String(message)
		if !ok {
			return nil, false
		}
		e.Message = s
	}
	if data != nil {
		e.Data = json.RawMessage(data)
	}
	return e, true
}

// Encode writes msg as go-sdk's jsonrpc.EncodeMessage does: a request
// (every call and notification the client sends) by hand, its params as
// go-sdk encoded them, anything else by go-sdk.
func Encode(msg jsonrpc.Message) ([]byte, error) {
	var dst []byte
	if req, ok := msg.(*jsonrpc.Request); ok {
		// The envelope is 47 bytes and an id; a number's is at most 20.
		n := 64 + len(req.Method) + len(req.Params)
		if id, ok := req.ID.Raw().(string); ok {
			n += len(id)
		}
		dst = make([]byte, 0, n)
	}
	return Append(dst, msg)
}

// Append is [Encode] appending to dst: a connection that writes one
// message at a time keeps one buffer for all.
func Append(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method == "" || !plain(req.Method) {
		return bySDK(dst, msg)
	}
	out := append(dst, `{"jsonrpc":"2.0"`...)
	switch v := req.ID.Raw().(type) {
	case nil:
	case int64:
		out = append(out, `,"id":`...)
		out = strconv.AppendInt(out, v, 10)
	case string:
		if !plain(v) {
			return bySDK(dst, msg)
		}
		out = append(out, `,"id":"`...)
		out = append(out, v...)
		out = append(out, '"')
	default:
		return bySDK(dst, msg)
	}
	out = append(out, `,"method":"`...)
	out = append(out, req.Method...)
	out = append(out, '"')
	if len(req.Params) > 0 {
		out = append(out, `,"params":`...)
		out = append(out, req.Params...)
	}
	return append(out, '}'), nil
}

// bySDK appends msg as go-sdk encodes it.
func bySDK(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return append(dst, data...), nil
}

// plain reports whether s is written in JSON as it is, between quotes:
// printable ASCII but the quote and the backslash.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
