package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Defaults of [Sampling].
const (
	// DefaultSamplingMaxTokens caps the answer to one sampling request.
	DefaultSamplingMaxTokens = 4096
	// DefaultSamplingRequests bounds the sampling requests of one tool
	// call.
	DefaultSamplingRequests = 10
)

// codeRejected is the error code the specification gives a sampling
// request the user rejected (client/sampling, "Error Handling").
const codeRejected = -1

// Sampling says how the host's model answers a server that asks it for a
// completion (sampling/createMessage, and on protocol 2026-07-28 the
// sampling an input_required result asks for): see [WithSampling], and
// mcptool.Sampling's doc for each field (mcptool converts one to the
// other). Zero fields are defaults: [DefaultSamplingMaxTokens] and
// [DefaultSamplingRequests]; a negative bound is refused at Connect.
type Sampling struct {
	Model       llm.Model
	Approve     func(ctx context.Context, req *SamplingRequest) error
	CheckTool   func(ctx context.Context, name string, args json.RawMessage) error
	MaxTokens   int
	MaxRequests int
}

func (s *Sampling) check() error {
	switch {
	case s.Model == nil:
		return errors.New("no model")
	case s.MaxTokens < 0:
		return fmt.Errorf("MaxTokens %d: negative, and this bound protects the host from the server, so it cannot be lifted", s.MaxTokens)
	case s.MaxRequests < 0:
		return fmt.Errorf("MaxRequests %d: negative, and this bound protects the host from the server, so it cannot be lifted", s.MaxRequests)
	}
	return nil
}

// WithSampling lets the server ask the host's model for completions, and
// declares the sampling capability (with tools) so that it may; without
// it, sampling is off: the capability is not declared and a server cannot
// ask. s says which model answers and within which bounds.
//
// A request is answered on its own: the server's system prompt is the
// model's system prompt for that request, its messages are the whole
// conversation, and nothing of the host's prompt or conversation is added;
// the server's model preferences are shown to Approve, never sent to the
// model. A request asking for context from the host's servers
// (includeContext other than "none") is refused as invalid params, as is
// one whose tool results do not answer its tool uses (client/sampling,
// "Message Content Constraints"). A request that comes outside any tool
// call is refused: its call, which bounds it, is unknown. Tools in the
// request are offered to the model, unless the server's toolChoice is
// "none" ("required" is taken as "auto": [llm.Request] cannot force a
// call); the calls in the model's answer pass the gates of
// [Sampling.CheckTool].
func WithSampling(s Sampling) Option { return func(c *config) { c.sampling = &s } }

// A SamplingRequest is a server's request for a completion, as [Sampling]'s
// Approve sees it: mcptool.SamplingRequest, whose doc says each field, with
// the same fields in the same order (mcptool converts one to the other).
// Every text in it comes from the server.
type SamplingRequest struct {
	Server, Tool, System                              string
	Messages                                          []llm.Message
	Tools                                             []tool.Definition
	ToolChoice                                        string
	MaxTokens                                         int
	Temperature                                       *float64
	ModelHints                                        []string
	CostPriority, SpeedPriority, IntelligencePriority float64
}

// sample answers a server's sampling/createMessage.
func (p *Provider) sample(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	if res, ok, err := relayed(p, ctx, func(ctx context.Context, r Relay) (*mcp.CreateMessageWithToolsResult, error) {
		return r.CreateMessageWithTools(ctx, req.Params)
	}); ok {
		return res, err
	}
	s := p.cfg.sampling
	if s == nil {
		return nil, rejected("sampling is answered only during a relayed call")
	}
	frames := p.inflight.of(ctx)
	if len(frames) == 0 {
		return nil, rejected("sampling is answered only during a tool call")
	}
	sr, err := p.samplingRequest(ctx, req.Params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if len(frames) == 1 {
		sr.Tool = frames[0].tool
	}
	if !p.inflight.charge(frames, cmp.Or(s.MaxRequests, DefaultSamplingRequests)) {
		return nil, rejected(fmt.Sprintf("more than %d sampling requests during one tool call", cmp.Or(s.MaxRequests, DefaultSamplingRequests)))
	}
	if s.Approve != nil {
		if err := s.Approve(ctx, sr); err != nil {
			return nil, rejected(fmt.Sprintf("the user rejected the sampling request: %v", err))
		}
	}
	lr := llm.Request{System: sr.System, Messages: sr.Messages, Tools: sr.Tools, Temperature: sr.Temperature,
		MaxTokens: min(cmp.Or(sr.MaxTokens, s.maxTokens()), s.maxTokens())}
	if sr.ToolChoice == "none" {
		lr.Tools = nil
	}
	resp, err := s.Model.Generate(ctx, lr)
	if err != nil {
		return nil, fmt.Errorf("sampling: the model: %w", err)
	}
	if err := p.checkSampledCalls(ctx, lr.Tools, resp.Message.ToolCalls); err != nil {
		return nil, rejected(err.Error())
	}
	return sampled(s.Model, resp)
}

func (s *Sampling) maxTokens() int { return cmp.Or(s.MaxTokens, DefaultSamplingMaxTokens) }

func rejected(msg string) error { return &jsonrpc.Error{Code: codeRejected, Message: msg} }

// charge counts one sampling request against each of frames, unless one
// of them has had max already.
func (in *inflight) charge(frames []*callFrame, max int) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, f := range frames {
		if f.sampled >= max {
			return false
		}
	}
	for _, f := range frames {
		f.sampled++
	}
	return true
}

// samplingRequest checks a server's request and makes it what Approve and
// the model see.
func (p *Provider) samplingRequest(ctx context.Context, params *mcp.CreateMessageWithToolsParams) (*SamplingRequest, error) {
	if params == nil {
		return nil, errors.New("no params")
	}
	if c := params.IncludeContext; c != "" && c != "none" {
		return nil, fmt.Errorf("includeContext %q: this host gives no server the context of its servers", c)
	}
	sr := &SamplingRequest{Server: p.name, System: params.SystemPrompt, MaxTokens: int(params.MaxTokens), ToolChoice: "auto"}
	if params.Temperature != 0 {
		sr.Temperature = &params.Temperature
	}
	if tc := params.ToolChoice; tc != nil && tc.Mode != "" {
		sr.ToolChoice = tc.Mode
	}
	if mp := params.ModelPreferences; mp != nil {
		for _, h := range mp.Hints {
			if h != nil {
				sr.ModelHints = append(sr.ModelHints, h.Name)
			}
		}
		sr.CostPriority, sr.SpeedPriority, sr.IntelligencePriority = mp.CostPriority, mp.SpeedPriority, mp.IntelligencePriority
	}
	for _, t := range params.Tools {
		if t == nil {
			continue
		}
		in, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
		}
		sr.Tools = append(sr.Tools, tool.Definition{Name: t.Name, Description: t.Description, InputSchema: in,
			Origin: tool.Origin{Server: p.name, Tool: t.Name}})
	}
	var err error
	sr.Messages, err = samplingMessages(ctx, params.Messages)
	return sr, err
}

// samplingMessages converts the server's messages, checking that each
// assistant message's tool uses are answered, each of them, by the next
// message, which holds tool results alone.
func samplingMessages(ctx context.Context, in []*mcp.SamplingMessageV2) ([]llm.Message, error) {
	var out []llm.Message
	var open []llm.ToolCall // the tool uses the next message must answer
	for i, m := range in {
		if m == nil {
			return nil, fmt.Errorf("message %d: null", i)
		}
		var results, other []mcp.Content
		var calls []llm.ToolCall
		for _, c := range m.Content {
			switch c := c.(type) {
			case *mcp.ToolResultContent:
				results = append(results, c)
			case *mcp.ToolUseContent:
				args, _ := json.Marshal(c.Input)
				calls = append(calls, llm.ToolCall{ID: c.ID, Name: c.Name, Arguments: modelio.Args(args)})
			default:
				other = append(other, c)
			}
		}
		if len(results) > 0 && (len(other) > 0 || len(calls) > 0) {
			return nil, fmt.Errorf("message %d: tool results mixed with other content", i)
		}
		answered := map[string]bool{}
		for _, c := range results {
			r := c.(*mcp.ToolResultContent)
			answered[r.ToolUseID] = true
			var name string
			if j := slices.IndexFunc(open, func(c llm.ToolCall) bool { return c.ID == r.ToolUseID }); j >= 0 {
				name = open[j].Name
			} else {
				return nil, fmt.Errorf("message %d: a tool result for %q, which no tool use of the message before asked for", i, r.ToolUseID)
			}
			parts, _ := partsOf(ctx, r.Content, "")
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: r.ToolUseID, ToolName: name, Parts: parts, IsError: r.IsError})
		}
		for _, c := range open {
			if !answered[c.ID] {
				return nil, fmt.Errorf("message %d: tool result missing for %q", i, c.ID)
			}
		}
		open = nil
		if len(results) > 0 {
			if m.Role != "user" {
				return nil, fmt.Errorf("message %d: tool results in a message of role %q", i, m.Role)
			}
			continue
		}
		parts, _ := partsOf(ctx, other, "")
		switch m.Role {
		case "user":
			if len(calls) > 0 {
				return nil, fmt.Errorf("message %d: tool uses in a user message", i)
			}
			out = append(out, llm.Message{Role: llm.RoleUser, Parts: parts})
		case "assistant":
			out = append(out, llm.Message{Role: llm.RoleAssistant, Parts: modelio.TextOnly(parts), ToolCalls: calls})
			open = calls
		default:
			return nil, fmt.Errorf("message %d: role %q", i, m.Role)
		}
	}
	if len(open) > 0 {
		return nil, errors.New("the last message's tool uses have no results")
	}
	return out, nil
}

// checkSampledCalls judges the tool calls of the model's answer: each
// names a tool offered, has arguments that fit its input schema, and
// passes CheckTool.
func (p *Provider) checkSampledCalls(ctx context.Context, offered []tool.Definition, calls []llm.ToolCall) error {
	for _, c := range calls {
		i := slices.IndexFunc(offered, func(d tool.Definition) bool { return d.Name == c.Name })
		if i < 0 {
			return fmt.Errorf("the model called %q, which the request did not offer", c.Name)
		}
		v, err := toolschema.Compile(offered[i].InputSchema)
		if err == nil {
			err = v.Validate(c.Arguments)
		}
		if err != nil {
			return fmt.Errorf("the model's call of %q: %w", c.Name, err)
		}
		if check := p.cfg.sampling.CheckTool; check != nil {
			if err := check(ctx, c.Name, c.Arguments); err != nil {
				return fmt.Errorf("the model's call of %q was refused: %w", c.Name, err)
			}
		}
	}
	return nil
}

// sampled is the model's answer as the server reads it.
func sampled(model llm.Model, resp *llm.Response) (*mcp.CreateMessageWithToolsResult, error) {
	res := &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: "unknown", StopReason: stopReason(resp)}
	if n, ok := model.(interface{ Name() string }); ok && n.Name() != "" {
		res.Model = n.Name()
	}
	for _, part := range resp.Message.Parts {
		switch part := part.(type) {
		case tool.TextPart:
			res.Content = append(res.Content, &mcp.TextContent{Text: part.Text})
		case tool.ImagePart:
			res.Content = append(res.Content, &mcp.ImageContent{Data: part.Data, MIMEType: part.MIMEType})
		}
	}
	for _, c := range resp.Message.ToolCalls {
		var input map[string]any
		if err := json.Unmarshal(modelio.Args(c.Arguments), &input); err != nil {
			return nil, fmt.Errorf("sampling: the model's call of %q: arguments are not a JSON object: %w", c.Name, err)
		}
		res.Content = append(res.Content, &mcp.ToolUseContent{ID: c.ID, Name: c.Name, Input: input})
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{&mcp.TextContent{}}
	}
	return res, nil
}

// stopReason is the specification's name for why the model stopped, or
// the vendor's when it has none.
func stopReason(resp *llm.Response) string {
	switch resp.StopReason {
	case llm.StopEndTurn:
		return "endTurn"
	case llm.StopToolUse:
		return "toolUse"
	case llm.StopMaxTokens:
		return "maxTokens"
	}
	return cmp.Or(resp.VendorStopReason, string(resp.StopReason))
}
