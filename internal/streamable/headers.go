package streamable

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/rawjson"
)

// The headers of streamable HTTP, as go-sdk names them.
const (
	versionHeader = "Mcp-Protocol-Version"
	sessionHeader = "Mcp-Session-Id"
	lastIDHeader  = "Last-Event-Id" // canonical form of Last-Event-ID
	methodHeader  = "Mcp-Method"
	nameHeader    = "Mcp-Name"
	paramPrefix   = "Mcp-Param-"
)

// standardVersion is the first protocol version whose requests carry
// Mcp-Method, Mcp-Name and Mcp-Param-* headers (SEP-2243), and which has
// no standalone stream (SEP-2575).
const standardVersion = "2026-07-28"

// metaVersion returns the protocol version a request's _meta names
// (SEP-2575: every request of protocol 2026-07-28 or later), or "".
func metaVersion(params []byte) string {
	return stringMember(member(params, "_meta"), mcp.MetaKeyProtocolVersion)
}

// setStandard sets the headers a request of protocol 2026-07-28 or later
// carries besides (SEP-2243), as go-sdk sets them: its method, the name of
// what it is about (the tool or prompt, the resource's URI), and for a
// tools/call the arguments that schema, the tool's input schema as
// listed, marks x-mcp-header.
func setStandard(h http.Header, req *jsonrpc.Request, schema func(tool string) json.RawMessage) {
	h[methodHeader] = []string{req.Method}
	member := "name"
	switch req.Method {
	case "tools/call", "prompts/get":
	case "resources/read":
		member = "uri"
	default:
		return
	}
	var name, args []byte
	rawjson.Members(req.Params, func(k, v []byte) bool {
		switch string(k) {
		case member:
			name = v
		case "arguments":
			args = v
		}
		return true
	})
	s, ok := rawjson.String(name)
	if !ok {
		return
	}
	h[nameHeader] = []string{s}
	if req.Method != "tools/call" || schema == nil {
		return
	}
	if in := schema(s); bytes.Contains(in, []byte("x-mcp-header")) {
		for header, value := range paramHeaders(in, args) {
			h.Set(paramPrefix+header, value)
		}
	}
}

// paramHeaders returns the Mcp-Param-* headers (by the name after the
// prefix) of the arguments args of a call whose tool's input schema is
// schema: each argument, at any depth, whose property declares
// x-mcp-header, if it is a string, a boolean or an integer a float64
// holds exactly (SEP-2243), base64-encoded where a header could not carry
// it as it is.
func paramHeaders(schema, args []byte) map[string]string {
	out := map[string]string{}
	var walk func(schema []byte, path [][]byte, depth int)
	walk = func(schema []byte, path [][]byte, depth int) {
		if depth > maxSchemaDepth {
			return
		}
		rawjson.Members(member(schema, "properties"), func(name, prop []byte) bool {
			at := append(path[:len(path):len(path)], name)
			var header string
			if v := member(prop, "x-mcp-header"); v != nil && json.Unmarshal(v, &header) == nil && header != "" {
				if value, ok := headerValue(argument(args, at)); ok {
					out[header] = value
				}
			}
			walk(prop, at, depth+1)
			return true
		})
	}
	walk(schema, nil, 0)
	return out
}

// maxSchemaDepth bounds the nesting of properties read for headers.
const maxSchemaDepth = 64

// member is the value of the member key of the object obj, the last if
// it is written twice, or nil.
func member(obj []byte, key string) []byte {
	var found []byte
	rawjson.Members(obj, func(k, v []byte) bool {
		if string(k) == key {
			found = v
		}
		return true
	})
	return found
}

// stringMember is the string the member key of the object obj holds, or
// "".
func stringMember(obj []byte, key string) string {
	s, _ := rawjson.String(member(obj, key))
	return s
}

// argument is the value at path in the arguments args, or nil.
func argument(args []byte, path [][]byte) []byte {
	v := args
	for _, key := range path {
		if v = member(v, string(key)); v == nil {
			return nil
		}
	}
	return v
}

// headerValue is an argument's value as its header carries it: a string,
// a boolean or a safe integer, base64-encoded within =?base64?...?= when
// it has a character a header cannot carry, space around it, or looks
// encoded already.
func headerValue(v []byte) (string, bool) {
	var s string
	switch {
	case v == nil || string(v) == "null":
		return "", false
	case string(v) == "true" || string(v) == "false":
		s = string(v)
	case v[0] == '"':
		var ok bool
		if s, ok = rawjson.String(v); !ok {
			return "", false
		}
	default:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return "", false
		}
		s = strconv.FormatInt(int64(f), 10)
	}
	if needsBase64(s) {
		return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=", true
	}
	return s, true
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for _, c := range s {
		if c < 0x20 || c > 0x7E {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}
