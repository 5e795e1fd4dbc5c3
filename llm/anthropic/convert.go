package anthropic

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/check"
	"github.com/mcpbridge/mcpbridge/tool"
)

// params builds the Messages request.
func (m *Model) params(req llm.Request) (sdk.MessageNewParams, error) {
	maxTokens, err := m.s.MaxTokens(req.MaxTokens)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	p := sdk.MessageNewParams{Model: m.s.Name, MaxTokens: int64(maxTokens)}
	if req.System != "" {
		block := sdk.TextBlockParam{Text: req.System}
		if m.promptCaching {
			block.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		p.System = []sdk.TextBlockParam{block}
	}
	msgs, err := m.messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	if p.Tools, err = check.Tools("anthropic", req.Tools, toolParam); err != nil {
		return p, err
	}
	if len(req.Deferred) == 0 {
		return p, nil
	}
	if !m.deferTools {
		return p, fmt.Errorf("anthropic: %d deferred tools, but Options.DeferTools is not set (a model without tool search refuses them)", len(req.Deferred))
	}
	deferred, err := check.Tools("anthropic", req.Deferred, toolParam)
	for _, t := range deferred {
		t.OfTool.DeferLoading = sdk.Bool(true)
	}
	p.Tools = append(p.Tools, deferred...)
	return p, err
}

// toolParam encodes a definition. The schema goes to the SDK as an override
// of the input schema, so it is sent as it is instead of being rebuilt from
// the SDK's few typed fields.
func toolParam(d tool.Definition, schema json.RawMessage) sdk.ToolUnionParam {
	t := sdk.ToolParam{
		Name:        d.Name,
		InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
	}
	if d.Description != "" {
		t.Description = sdk.String(d.Description)
	}
	return sdk.ToolUnionParam{OfTool: &t}
}

// messages maps the conversation, merging consecutive messages of one role:
// the tool results of a turn must be one user message, and a user message
// that follows them joins it (after them, as the API wants).
func (m *Model) messages(in []llm.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	var lastRole llm.Role // user or assistant, as sent
	add := func(role llm.Role, blocks []sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return // the API refuses an empty message
		}
		if len(out) > 0 && role == lastRole {
			last := &out[len(out)-1]
			if role == llm.RoleUser {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
			} else {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
			}
			return
		}
		if role == llm.RoleUser {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
		lastRole = role
	}
	for i, msg := range in {
		switch msg.Role {
		case llm.RoleUser:
			add(llm.RoleUser, m.blocks(msg.Parts))
		case llm.RoleAssistant:
			add(llm.RoleAssistant, assistantBlocks(msg))
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("anthropic: message %d: tool result without a call ID", i)
			}
			add(llm.RoleUser, []sdk.ContentBlockParamUnion{m.toolResult(msg)})
		default:
			return nil, fmt.Errorf("anthropic: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// blocks maps user content. Empty text is left out: the API refuses an empty
// text block.
func (m *Model) blocks(parts []tool.Part) []sdk.ContentBlockParamUnion {
	if !m.s.Vision() {
		parts = modelio.TextOnly(parts)
	}
	var out []sdk.ContentBlockParamUnion
	for _, p := range parts {
		switch p := p.(type) {
		case tool.TextPart:
			if p.Text != "" {
				out = append(out, sdk.NewTextBlock(p.Text))
			}
		case tool.ImagePart:
			out = append(out, sdk.NewImageBlockBase64(p.MIMEType, base64.StdEncoding.EncodeToString(p.Data)))
		}
	}
	return out
}

// toolResult maps a tool message. Its content takes the blocks of a user
// message, text and images, in another union type.
func (m *Model) toolResult(msg llm.Message) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
	if msg.IsError {
		r.IsError = sdk.Bool(true)
	}
	for _, b := range m.blocks(msg.Parts) {
		r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfText: b.OfText, OfImage: b.OfImage})
	}
	if m.deferTools {
		for _, name := range msg.References {
			r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{OfToolReference: &sdk.ToolReferenceBlockParam{ToolName: name}})
		}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

func assistantBlocks(msg llm.Message) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, p := range msg.Parts {
		if t, ok := p.(tool.TextPart); ok && t.Text != "" {
			out = append(out, sdk.NewTextBlock(t.Text))
		}
	}
	for _, c := range msg.ToolCalls {
		out = append(out, sdk.NewToolUseBlock(c.ID, inputObject(c.Arguments), c.Name))
	}
	return out
}

// inputObject returns the arguments as the JSON object tool_use.input must
// be. Arguments that are not one (from a call another vendor's model wrote
// badly) are sent as {}, rather than failing the whole conversation.
func inputObject(args json.RawMessage) json.RawMessage {
	// ObjectArgs turns blank arguments into {}, so trimmed is never empty.
	trimmed := bytes.TrimSpace(modelio.Args(args))
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return json.RawMessage("{}")
	}
	return trimmed
}

// response reads the answer's text and tool_use blocks; other blocks
// (thinking, server tools) are not part of the neutral model and are left
// out.
func response(msg *sdk.Message) *llm.Response {
	out := llm.Message{Role: llm.RoleAssistant}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Parts = append(out.Parts, tool.TextPart{Text: b.Text})
		case "tool_use":
			out.ToolCalls = append(out.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: modelio.Args(b.Input)})
		}
	}
	u := msg.Usage
	resp := &llm.Response{
		Message:          out,
		VendorStopReason: string(msg.StopReason),
		Usage: llm.Usage{
			InputTokens:           int(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens),
			OutputTokens:          int(u.OutputTokens),
			CachedInputTokens:     int(u.CacheReadInputTokens),
			CacheWriteInputTokens: int(u.CacheCreationInputTokens),
		},
	}
	switch msg.StopReason {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		resp.StopReason = llm.StopEndTurn
	case sdk.StopReasonToolUse:
		resp.StopReason = llm.StopToolUse
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		resp.StopReason = llm.StopMaxTokens
	case sdk.StopReasonRefusal:
		resp.StopReason = llm.StopRefusal
	default:
		resp.StopReason = llm.StopOther
	}
	return resp
}
