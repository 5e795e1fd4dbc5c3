package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpbridge/mcpbridge/internal/idscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A sink takes what an inbound makes of the server's output: the Conn, or a
// test.
type sink interface {
	// deliver passes a message on to Read.
	deliver(m jsonrpc.Message)
	// reply writes an answer back to the server, without blocking the
	// reader.
	reply(r *jsonrpc.Response)
	// skip notes a line that is not JSON-RPC.
	skip(line []byte, err error)
}

// inbound reads the server's stdout. Every request of ours the server
// answers gets an answer on Read, even when the server's cannot be used:
// over the line limit, or not decodable (nested too deep, say); every
// request of the server's that cannot be used is refused to it. A line
// that is not JSON-RPC is skipped.
type inbound struct {
	fr     *frameReader
	dec    decoder
	limit  int
	sink   sink
	logger *slog.Logger
}

// step reads one line and handles it; an error is the read's.
func (in *inbound) step() error {
	line, over, err := in.fr.next()
	if err != nil {
		return err
	}
	in.dec.owned = in.fr.owned
	in.frame(line, over)
	return nil
}

// frame handles what the frame reader read: a line, or one over the limit.
func (in *inbound) frame(line []byte, over *oversized) {
	switch {
	case over != nil:
		in.oversized(over)
	case bytes.TrimLeft(line, " \t\r")[0] == '[':
		in.batch(line)
	default:
		in.message(line)
	}
}

// batch handles a line holding a JSON array of messages, which servers
// speaking protocol versions before 2025-06-18 may send.
func (in *inbound) batch(line []byte) {
	var raws []json.RawMessage
	err := json.Unmarshal(line, &raws)
	if err == nil && len(raws) == 0 {
		err = errors.New("empty batch")
	}
	if err != nil {
		in.sink.skip(line, err)
		return
	}
	for _, raw := range raws {
		in.message(raw)
	}
}

// message handles one message that is not a batch.
func (in *inbound) message(raw []byte) {
	m, err := in.dec.decode(raw)
	if err == nil {
		in.sink.deliver(m)
		return
	}
	var sc idscan.Scanner
	sc.Feed(raw)
	id, hasID, isRequest := sc.Result()
	if !hasID || !sc.IsJSONRPC() {
		in.sink.skip(raw, err)
		return
	}
	// JSON-RPC by its own account, with an id: someone waits for it.
	attrs := []any{"bytes", len(raw), "id", id.Raw(), "error", err}
	if isRequest {
		in.logger.Warn("refused a request from MCP server that could not be decoded", attrs...)
		in.sink.reply(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeParseError,
			Message: fmt.Sprintf("request could not be decoded: %v", err),
		}})
		return
	}
	in.logger.Warn("failed a request whose answer from MCP server could not be decoded", attrs...)
	in.sink.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeParseError,
		Message: fmt.Sprintf("the answer could not be decoded: %v", err),
	}})
}

// oversized deals with a message that exceeded the line limit and was
// discarded.
func (in *inbound) oversized(o *oversized) {
	attrs := []any{"bytes", o.size, "limit", in.limit}
	switch {
	case !o.hasID:
		in.logger.Warn("skipped a notification from MCP server over the line limit", attrs...)
	case o.isRequest:
		in.logger.Warn("refused a request from MCP server over the line limit", append(attrs, "id", o.id.Raw())...)
		in.sink.reply(&jsonrpc.Response{ID: o.id, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("request of %d bytes exceeds the client's %d-byte line limit", o.size, in.limit),
		}})
	default:
		in.logger.Warn("failed a request whose answer from MCP server is over the line limit", append(attrs, "id", o.id.Raw())...)
		in.sink.deliver(&jsonrpc.Response{ID: o.id, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("message of %d bytes exceeds the %d-byte line limit (raise the line limit)", o.size, in.limit),
		}})
	}
}
