package auth

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// scope is the instrumentation scope of the token requests' spans.
const scope = "github.com/mcpbridge/mcpbridge/mcptool/auth"

// tracing makes a token request to at the span "oauth_token": a client
// span saying the step, the grant type sent and the endpoint's address,
// and, for a failure, error.type: the OAuth error code, else the HTTP
// status, else the cause's class. Never a credential, a token or a form
// value but the grant type. The span goes to the tracer provider of the
// span in ctx (the MCP request the token is for, when mcptool sends it),
// or else to OpenTelemetry's global one; done ends it.
func tracing(ctx context.Context, at tokenEndpoint, grantType, step string) (_ context.Context, done func(error)) {
	attrs := []attribute.KeyValue{telemetry.OAuthStep.String(step), telemetry.OAuthGrant.String(grantType)}
	if u, err := url.Parse(at.url); err == nil {
		attrs = append(attrs, telemetry.ServerAddress.String(u.Hostname()))
		if port, err := strconv.Atoi(u.Port()); err == nil {
			attrs = append(attrs, telemetry.ServerPort.Int(port))
		}
	}
	ctx, span := telemetry.Inherit(ctx, scope, telemetry.SpanToken, trace.SpanKindClient, attrs...)
	return ctx, func(err error) {
		if err != nil {
			telemetry.Fail(span, tokenErrorType(err), err.Error())
		}
		span.End()
	}
}

// tokenErrorType is the error.type of a failed token request.
func tokenErrorType(err error) string {
	var e *Error
	switch {
	case !errors.As(err, &e):
	case e.Code != "":
		return e.Code
	case e.Status != 0:
		return strconv.Itoa(e.Status)
	case e.Err != nil:
		return telemetry.ErrorType(e.Err)
	}
	return telemetry.ErrorType(err)
}
