package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
)

// serverEnv is the environment variable that makes this program the echo
// server: "stdio" over its standard input and output, "http" (answers as
// event streams) or "http-json" (as JSON bodies) over streamable HTTP on a
// loopback port, whose URL it prints on a line of its own, until its
// standard input ends.
const serverEnv = "CALLBENCH_SERVER"

// The echo server is written by hand, JSON-RPC on the wire, so that every
// client measured talks to the same server and the server's own cost is
// small and the same for all. It speaks protocol 2025-11-25, the newest
// the TypeScript SDK client knows (server/discover is unknown to it, so a
// client of 2026-07-28 falls back to initialize), and serves one tool,
// echo, which answers its text argument as a text part, the bytes the
// client wrote.
func serve(kind string) error {
	switch kind {
	case "stdio":
		return serveStdio(os.Stdin, os.Stdout)
	case "http", "http-json":
		return serveHTTP(kind == "http-json")
	}
	return fmt.Errorf("%s=%q: want stdio or http", serverEnv, kind)
}

// A message is what the server reads of a client's message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Arguments       struct {
			Text json.RawMessage `json:"text"`
		} `json:"arguments"`
	} `json:"params"`
}

const toolsList = `{"tools":[{"name":"echo","description":"Echoes its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`

// answer appends to out the answer to the message data, and reports
// whether the message wants one (a notification, a response do not).
func answer(out, data []byte) ([]byte, bool) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return append(out, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`...), true
	}
	if len(m.ID) == 0 || m.Method == "" {
		return out, false
	}
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, m.ID...)
	switch m.Method {
	case "tools/call":
		out = append(out, `,"result":{"content":[{"type":"text","text":`...)
		out = append(out, m.Params.Arguments.Text...)
		out = append(out, `}]}}`...)
	case "initialize":
		version := "2025-11-25"
		switch m.Params.ProtocolVersion {
		case "2025-06-18", "2025-03-26", "2024-11-05":
			version = m.Params.ProtocolVersion
		}
		out = append(out, `,"result":{"protocolVersion":"`+version+`","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}}`...)
	case "tools/list":
		out = append(out, `,"result":`+toolsList+`}`...)
	case "ping":
		out = append(out, `,"result":{}}`...)
	default:
		out = append(out, `,"error":{"code":-32601,"message":"method not found"}}`...)
	}
	return out, true
}

// serveStdio answers each line of in on out.
func serveStdio(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	var line, buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var ok bool
			if buf, ok = answer(buf[:0], line); ok {
				w.Write(append(buf, '\n'))
				// Answer at once unless more is already read: then
				// the answers go out together.
				if r.Buffered() == 0 {
					if err := w.Flush(); err != nil {
						return err
					}
				}
			}
		}
		if err != nil {
			w.Flush()
			if err == io.EOF {
				return nil
			}
			return err
		}
		line = line[:0]
	}
}

// serveHTTP serves streamable HTTP on a loopback port: a POST's answer as
// one event of an event stream (what go-sdk's and the TypeScript SDK's
// servers send by default), or as a JSON body if asJSON, a session named
// by Mcp-Session-Id, no standalone stream (405 to a GET).
func serveHTTP(asJSON bool) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var sessions atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
		case http.MethodDelete:
			return
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		buf := make([]byte, 0, 128+len(data))
		if !asJSON {
			buf = append(buf, "event: message\ndata: "...)
		}
		buf, ok := answer(buf, data)
		if !ok {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if bytes.Contains(data, []byte(`"initialize"`)) {
			w.Header().Set("Mcp-Session-Id", "s"+strconv.FormatInt(sessions.Add(1), 10))
		}
		if asJSON {
			w.Header().Set("Content-Type", "application/json")
			w.Write(buf)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(append(buf, "\n\n"...))
	})}
	go srv.Serve(ln)
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin) // until the bench ends
	return srv.Close()
}
