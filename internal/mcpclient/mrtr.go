package mcpclient

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// askedFor sends a request other than tools/call (resources/read,
// prompts/get, completion/complete) with send, for the [Caller] ctx
// carries, whose request counts as in flight ([Provider.request]): what
// the server asks of the host in the request's result (2026-07-28 multi
// round trip) goes to the caller's relay. A result whose questions the
// relay leaves to its client ([ErrInputRequired]) is returned raw, as the
// server wrote it, for the client to answer in its next request. Without
// a caller's relay it is send alone.
func (p *Provider) askedFor(ctx context.Context, send func(context.Context) error) (json.RawMessage, error) {
	if callerOf(ctx).Relay == nil {
		return nil, send(ctx)
	}
	ctx, caught := sdkfix.WithCatch(ctx)
	defer caught.Release()
	err := send(ctx)
	if errors.Is(err, ErrInputRequired) {
		var res struct {
			InputRequests json.RawMessage `json:"inputRequests"`
		}
		if raw, ok := caught.Raw(); ok && json.Unmarshal(raw, &res) == nil && len(res.InputRequests) > 0 {
			return raw, nil
		}
	}
	return nil, err
}
