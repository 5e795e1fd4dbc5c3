package telemetry

import (
	"context"
	"errors"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/mcpbridge/mcpbridge/tool"
)

// ErrorType is the error.type of a failure, one of the values the package
// doc lists: the JSON-RPC code of a server's error answer; what a tool
// error says of itself ([tool.ErrUnserved], [tool.RefusedError],
// [tool.FailedError] as "tool_error"); a timeout (an error whose Timeout
// method says so, or a passed deadline); the caller's cancellation; else
// the Go type of err as [semconv.ErrorType] names it, wrappers of
// fmt.Errorf unwrapped.
func ErrorType(err error) string {
	var (
		wire    *jsonrpc.Error
		refused *tool.RefusedError
		failed  *tool.FailedError
		timeout interface{ Timeout() bool }
	)
	switch {
	case errors.As(err, &wire):
		return strconv.FormatInt(wire.Code, 10)
	case errors.Is(err, tool.ErrUnserved):
		return ErrUnserved
	case errors.As(err, &refused):
		return ErrRefused
	case errors.As(err, &failed):
		return ErrToolError
	case errors.As(err, &timeout) && timeout.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return ErrTimeout
	case errors.Is(err, context.Canceled):
		return ErrCanceled
	}
	return semconv.ErrorType(err).Value.AsString()
}

// StatusCode is the JSON-RPC error code in err, as rpc.response.status_code
// has it, or "" when err is no server's error answer.
func StatusCode(err error) string {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return strconv.FormatInt(wire.Code, 10)
	}
	return ""
}
