package sdkfix

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// sessionGone makes the 404 that answers a request of a session read as
// the session's end, which it is (the streamable HTTP transport,
// 2025-11-25: a server that ended a session answers its requests 404).
// go-sdk takes a 404 for the session's end (mcp.ErrSessionMissing, on
// which the provider opens a new one) only when its body is no JSON-RPC
// error: one that is, it reads as the request's own failure and keeps the
// session, so that a server answering as the Python SDK does (a JSON-RPC
// error whose id is "server-error") fails every request for ever
// (TestGoSDKKeepsASessionA404AnswersWithAnError). The body, read within
// peekCap, is dropped, but for a "method not found", which is the
// request's (SEP-2575).
func sessionGone(req *http.Request, resp *http.Response) {
	if resp.StatusCode != http.StatusNotFound || req.Header.Get("Mcp-Session-Id") == "" || resp.Body == nil {
		return
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, peekCap))
	msg, err := jsonrpc.DecodeMessage(data)
	if r, ok := msg.(*jsonrpc.Response); err == nil && ok && r.Error != nil && isMethodNotFound(r.Error) {
		resp.Body = &putBack{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
		return
	}
	resp.Body.Close()
	resp.Body, resp.ContentLength = http.NoBody, 0
}

func isMethodNotFound(err error) bool {
	var w *jsonrpc.Error
	return errors.As(err, &w) && w.Code == jsonrpc.CodeMethodNotFound
}
