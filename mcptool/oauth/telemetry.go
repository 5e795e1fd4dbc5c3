package oauth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// scope is the instrumentation scope of the token requests' spans.
const scope = "github.com/mcpbridge/mcpbridge/mcptool/oauth"

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

// tracedTokens returns c with its token requests traced as [tracing]
// traces this package's own: go-sdk's authorization code flow sends its
// code exchange and refreshes itself, through c.
func tracedTokens(c *http.Client) *http.Client {
	traced := *c
	traced.Transport = tokenTracer{cmp.Or[http.RoundTripper](c.Transport, http.DefaultTransport)}
	return &traced
}

// tokenTracer makes each token request it sends a span, found by its
// form's grant_type.
type tokenTracer struct{ next http.RoundTripper }

func (t tokenTracer) RoundTrip(req *http.Request) (*http.Response, error) {
	grant := grantOf(req)
	if grant == "" {
		return t.next.RoundTrip(req)
	}
	step := stepTokenRequest
	if grant == grantRefreshToken {
		step = stepRefresh
	}
	ctx, done := tracing(req.Context(), tokenEndpoint{url: req.URL.String()}, grant, step)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	switch {
	case err != nil:
		done(&Error{Step: step, Err: err})
	case resp.StatusCode >= 400:
		done(&Error{Step: step, Status: resp.StatusCode, Code: errorCode(resp)})
	default:
		done(nil)
	}
	return resp, err
}

// grantOf returns the grant_type of a token request, or "" for any other
// request. The form is read from a copy of the body.
func grantOf(req *http.Request) string {
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	if ct, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxTokenResponse))
	if err != nil {
		return ""
	}
	form, err := url.ParseQuery(string(data))
	if err != nil {
		return ""
	}
	return form.Get("grant_type")
}

// errorCode returns the OAuth error code of a refused token request
// (RFC 6749 section 5.2), leaving the body to be read again.
func errorCode(resp *http.Response) string {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var body struct {
		Error string `json:"error"`
	}
	if err != nil || json.Unmarshal(data, &body) != nil {
		return ""
	}
	return body.Error
}
