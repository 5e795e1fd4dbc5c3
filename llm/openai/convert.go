package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/check"
	"github.com/mcpbridge/mcpbridge/tool"
)

// params builds the Chat Completions request.
func (m *Model) params(req llm.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(m.s.Name)}
	if len(req.Deferred) > 0 {
		// Deferred tools are the Responses API's, which DeferTools selects.
		return p, fmt.Errorf("openai: %d deferred tools, but Options.DeferTools is not set (the Chat Completions API defers none; a model without tool search refuses them)", len(req.Deferred))
	}
	if req.System != "" {
		p.Messages = append(p.Messages, oai.SystemMessage(req.System))
	}
	msgs, err := m.messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = append(p.Messages, msgs...)
	if p.Tools, err = check.Tools("openai", req.Tools, m.toolParam); err != nil {
		return p, err
	}
	n, err := m.s.MaxTokens(req.MaxTokens)
	if err != nil {
		return p, err
	}
	if n > 0 {
		if m.legacyMaxTokens {
			p.MaxTokens = oai.Int(int64(n))
		} else {
			p.MaxCompletionTokens = oai.Int(int64(n))
		}
	}
	if req.Temperature != nil {
		p.Temperature = oai.Float(*req.Temperature)
	}
	return p, nil
}

// toolParam encodes a definition as a function tool, with "strict": true if
// it is Strict and the model sends strict mode. The function object is
// written here, with the schema as raw JSON, and handed to the SDK as an
// override: the SDK's own type holds parameters as a map, which would reorder
// the schema's keywords.
func (m *Model) toolParam(d tool.Definition, schema json.RawMessage) oai.ChatCompletionToolUnionParam {
	// Marshal cannot fail: the schema is valid JSON and the rest are a
	// string and a bool.
	fn, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict,omitempty"`
	}{d.Name, d.Description, schema, d.Strict && !m.noStrict})
	return oai.ChatCompletionFunctionTool(param.Override[shared.FunctionDefinitionParam](json.RawMessage(fn)))
}

// messages maps the conversation. Images of a run of tool messages are held
// back and sent in one user message after the run, because the API wants an
// assistant's tool calls answered by contiguous tool messages.
func (m *Model) messages(in []llm.Message) ([]oai.ChatCompletionMessageParamUnion, error) {
	var out []oai.ChatCompletionMessageParamUnion
	var held []oai.ChatCompletionContentPartUnionParam
	flush := func() {
		if len(held) > 0 {
			out = append(out, oai.UserMessage(held))
			held = nil
		}
	}
	for i, msg := range in {
		if msg.Role != llm.RoleTool {
			flush()
		}
		switch msg.Role {
		case llm.RoleUser:
			out = append(out, m.userMessage(msg.Parts))
		case llm.RoleAssistant:
			out = append(out, assistantMessage(msg))
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("openai: message %d: tool result without a call ID", i)
			}
			res := tool.Reply{Parts: msg.Parts}
			out = append(out, oai.ToolMessage(res.Text(), msg.ToolCallID))
			if m.s.Vision() && res.HasImages() {
				held = append(held, oai.TextContentPart(imagesIntro(msg)))
				for _, p := range msg.Parts {
					if img, ok := p.(tool.ImagePart); ok {
						held = append(held, imagePart(img))
					}
				}
			}
		default:
			return nil, fmt.Errorf("openai: message %d: unknown role %q", i, msg.Role)
		}
	}
	flush()
	return out, nil
}

// imagesIntro is the text before the images of one tool result, so the model
// can tell which call they came from.
func imagesIntro(msg llm.Message) string {
	name := ""
	if msg.ToolName != "" {
		name = " (" + msg.ToolName + ")"
	}
	return fmt.Sprintf("The images of the result of tool call %s%s, in the order of its %s marks:", msg.ToolCallID, name, modelio.ImageMark)
}

// userMessage sends text alone as a plain string, which every compatible
// server takes, and anything else as content parts.
func (m *Model) userMessage(parts []tool.Part) oai.ChatCompletionMessageParamUnion {
	if !m.s.Vision() {
		parts = modelio.TextOnly(parts)
	}
	if res := (tool.Reply{Parts: parts}); !res.HasImages() {
		return oai.UserMessage(res.Text())
	}
	var cps []oai.ChatCompletionContentPartUnionParam
	for _, p := range parts {
		switch p := p.(type) {
		case tool.TextPart:
			cps = append(cps, oai.TextContentPart(p.Text))
		case tool.ImagePart:
			cps = append(cps, imagePart(p))
		}
	}
	return oai.UserMessage(cps)
}

func imagePart(img tool.ImagePart) oai.ChatCompletionContentPartUnionParam {
	return oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{
		URL: "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
	})
}

func assistantMessage(msg llm.Message) oai.ChatCompletionMessageParamUnion {
	var a oai.ChatCompletionAssistantMessageParam
	if text := msg.Text(); text != "" {
		a.Content.OfString = oai.String(text)
	}
	for _, c := range msg.ToolCalls {
		args := string(modelio.Args(c.Arguments))
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
			},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// response reads the first choice.
func response(c *oai.ChatCompletion) (*llm.Response, error) {
	if len(c.Choices) == 0 {
		return nil, errors.New("openai: the answer has no choices")
	}
	choice := c.Choices[0]
	msg := llm.Message{Role: llm.RoleAssistant}
	if choice.Message.Content != "" {
		msg.Parts = append(msg.Parts, tool.TextPart{Text: choice.Message.Content})
	}
	if choice.Message.Refusal != "" {
		msg.Parts = append(msg.Parts, tool.TextPart{Text: choice.Message.Refusal})
	}
	for i, tc := range choice.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // a custom tool; none is ever declared
		}
		id := tc.ID
		if id == "" {
			// Some compatible servers leave IDs out; the answer to a call
			// must still name it.
			id = "call_" + strconv.Itoa(i)
		}
		args := modelio.Args(json.RawMessage(tc.Function.Arguments))
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
	}
	resp := &llm.Response{
		Message:          msg,
		VendorStopReason: choice.FinishReason,
		Usage: llm.Usage{
			InputTokens:       int(c.Usage.PromptTokens),
			OutputTokens:      int(c.Usage.CompletionTokens),
			CachedInputTokens: int(c.Usage.PromptTokensDetails.CachedTokens),
		},
	}
	switch {
	case choice.Message.Refusal != "" || choice.FinishReason == "content_filter":
		resp.StopReason = llm.StopRefusal
	case choice.FinishReason == "length":
		resp.StopReason = llm.StopMaxTokens
	case len(msg.ToolCalls) > 0:
		resp.StopReason = llm.StopToolUse
	case choice.FinishReason == "stop":
		resp.StopReason = llm.StopEndTurn
	default:
		resp.StopReason = llm.StopOther
	}
	return resp, nil
}
