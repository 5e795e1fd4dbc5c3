package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/gate"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// scope is the instrumentation scope of the agent's spans and metrics.
const scope = "github.com/mcpbridge/mcpbridge/agent"

// loopTelemetry is the tool loop's instrumentation, by the GenAI
// conventions: invoke_agent around a run, chat around each model turn,
// execute_tool around each call, and the policy's refusals. A nil one
// records nothing.
type loopTelemetry struct {
	*telemetry.Telemetry
	// model are the attributes every span says of the model: its vendor
	// (gen_ai.provider.name) and its name, when the model tells them.
	model     []attribute.KeyValue
	modelName string
	content   bool
}

func newLoopTelemetry(cfg *Config) *loopTelemetry {
	t := telemetry.New(scope, cfg.TracerProvider, cfg.MeterProvider)
	if t == nil {
		return nil
	}
	l := &loopTelemetry{Telemetry: t, content: cfg.CallContent}
	// gen_ai.provider.name is required; a model that does not say whose
	// API it speaks is "_OTHER", the conventions' word for a value not
	// known.
	vendor := "_OTHER"
	if v, ok := cfg.Model.(interface{ Vendor() string }); ok && v.Vendor() != "" {
		vendor = v.Vendor()
	}
	l.model = []attribute.KeyValue{telemetry.GenAIProvider.String(vendor)}
	if n, ok := cfg.Model.(interface{ Name() string }); ok && n.Name() != "" {
		l.modelName = n.Name()
		l.model = append(l.model, telemetry.GenAIRequestModel.String(n.Name()))
	}
	return l
}

// invoke starts the span of a run, "invoke_agent"; done ends it with the
// tokens the run used and its outcome.
func (l *loopTelemetry) invoke(ctx context.Context) (_ context.Context, done func(*Result, error)) {
	if l == nil {
		return ctx, func(*Result, error) {}
	}
	ctx, span := l.Start(ctx, telemetry.OpInvokeAgent, trace.SpanKindInternal,
		append([]attribute.KeyValue{telemetry.GenAIOperation.String(telemetry.OpInvokeAgent)}, l.model...)...)
	return ctx, func(res *Result, err error) {
		span.SetAttributes(usage(res.Usage)...)
		if errors.Is(err, ErrStepLimit) {
			telemetry.Fail(span, telemetry.ErrStepLimit, err.Error())
			err = nil
		}
		telemetry.End(span, err)
	}
}

// chat starts the span of a model turn, "chat {model}"; done ends it with
// the tokens the turn used, why the model stopped, or why it failed.
func (l *loopTelemetry) chat(ctx context.Context) (_ context.Context, done func(*llm.Response, error)) {
	if l == nil {
		return ctx, func(*llm.Response, error) {}
	}
	ctx, span := l.Start(ctx, telemetry.Named(telemetry.OpChat, l.modelName), trace.SpanKindClient,
		append([]attribute.KeyValue{telemetry.GenAIOperation.String(telemetry.OpChat)}, l.model...)...)
	return ctx, func(resp *llm.Response, err error) {
		if err != nil {
			telemetry.Fail(span, chatErrorType(err), err.Error())
			span.End()
			return
		}
		reason := resp.VendorStopReason
		if reason == "" {
			reason = string(resp.StopReason)
		}
		span.SetAttributes(usage(resp.Usage)...)
		span.SetAttributes(telemetry.GenAIFinishReasons.StringSlice([]string{reason}))
		span.End()
	}
}

// usage is a token count as the conventions name it: cached and cache
// writes are parts of the input.
func usage(u llm.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{
		telemetry.GenAIInputTokens.Int(u.InputTokens),
		telemetry.GenAIOutputTokens.Int(u.OutputTokens),
		telemetry.GenAICacheRead.Int(u.CachedInputTokens),
		telemetry.GenAICacheCreation.Int(u.CacheWriteInputTokens),
	}
}

// chatErrorType is the error.type of a failed model turn: the vendor's
// error code or type when the API answered with one, else its HTTP status,
// else the error's class.
func chatErrorType(err error) string {
	var api *llm.APIError
	switch {
	case !errors.As(err, &api):
		return telemetry.ErrorType(err)
	case api.Code != "":
		return api.Code
	case api.Type != "":
		return api.Type
	}
	return strconv.Itoa(api.StatusCode)
}

// execute starts the span of one tool call, "execute_tool {tool}", in
// which the call runs (an MCP tool's client span is its child); done ends
// it with the result or the failure, as the tool gave them.
func (l *loopTelemetry) execute(ctx context.Context, c llm.ToolCall) (_ context.Context, done func(tool.Reply, error)) {
	if l == nil {
		return ctx, func(tool.Reply, error) {}
	}
	ctx, span := l.Start(ctx, telemetry.Named(telemetry.OpExecuteTool, c.Name), trace.SpanKindInternal,
		telemetry.GenAIOperation.String(telemetry.OpExecuteTool), telemetry.GenAIToolName.String(c.Name), telemetry.GenAIToolCallID.String(c.ID))
	if l.content && span.IsRecording() {
		span.SetAttributes(telemetry.GenAIToolArguments.String(telemetry.Content(string(c.Arguments))))
	}
	return ctx, func(res tool.Reply, err error) {
		if err == nil && l.content && span.IsRecording() {
			span.SetAttributes(telemetry.GenAIToolResult.String(telemetry.Content(resultText(res))))
		}
		telemetry.End(span, err)
	}
}

// resultText is a result as recorded: its structured content, or else its
// text.
func resultText(res tool.Reply) string {
	if len(res.Structured) > 0 {
		return string(res.Structured)
	}
	return res.Text()
}

// gated returns next behind the policy gate, as [policy.Policy.Gate]
// does, with each refusal a check_policy span and a refusal counted.
func (l *loopTelemetry) gated(g *gate.Policy, next tool.Handler) tool.Handler {
	if l == nil {
		return g.Handler(next)
	}
	return tool.HandlerFunc(func(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
		if err := g.Check(ctx, name, args); err != nil {
			if errors.As(err, new(*tool.RefusedError)) {
				l.Refused(ctx, name, telemetry.RefusedPolicy, err)
			}
			return tool.Reply{}, err
		}
		return next.Call(ctx, name, args)
	})
}

// found notes, on the span of the find_tools call in ctx, how many tools
// a search matched.
func found(ctx context.Context, n int) {
	trace.SpanFromContext(ctx).SetAttributes(telemetry.DisclosureMatches.Int(n))
}

// loaded notes, on the span of the load_tools call in ctx, which tools it
// loaded.
func loaded(ctx context.Context, names []string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(telemetry.DisclosureLoaded.StringSlice(names))
	}
}
