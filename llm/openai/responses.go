package openai

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/check"
	"github.com/mcpbridge/mcpbridge/tool"
)

// The Responses API is what Options.DeferTools selects: OpenAI's deferred
// tools live there alone. The search stays the caller's (package agent's
// find_tools, the first of Request.Tools): it goes as a client-executed
// tool_search, the model's tool_search_call comes back as a call of it, and
// its result goes back as a tool_search_output holding the definitions of
// the deferred tools it references, which loads them. The deferred tools
// are not listed in the request's tools: OpenAI shows the model the name and
// description of every tool listed there, deferred or not, which is the
// context that progressive disclosure saves; a tool_search_output may load a
// tool the request does not list.

// respond sends the request to the Responses endpoint.
func (m *Model) respond(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, search, err := m.responsesParams(req)
	if err != nil {
		return nil, err
	}
	if req.OnText != nil {
		return m.streamResponse(ctx, params, search, req.OnText)
	}
	r, err := m.client.Responses.New(ctx, params)
	if err != nil {
		return nil, m.rs.Err(err)
	}
	return responsesResponse(r, search)
}

// streamResponse sends the request streamed, passing each piece of text to
// onText as it arrives, and returns the answer of the stream's last event.
func (m *Model) streamResponse(ctx context.Context, params responses.ResponseNewParams, search string, onText func(string)) (*llm.Response, error) {
	stream := m.client.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	var final *responses.Response
	for stream.Next() {
		event := stream.Current()
		switch event.Type {
		case "response.output_text.delta", "response.refusal.delta":
			if event.Delta != "" {
				onText(event.Delta)
			}
		case "response.completed", "response.incomplete", "response.failed":
			final = &event.Response
		}
	}
	if err := stream.Err(); err != nil {
		return nil, m.rs.Err(err)
	}
	if final == nil {
		return nil, errors.New("openai: the streamed response ended before it was complete")
	}
	return responsesResponse(final, search)
}

// responsesParams builds the Responses request, and says the name of the
// search tool ("" when no tool is deferred).
func (m *Model) responsesParams(req llm.Request) (responses.ResponseNewParams, string, error) {
	// A Model keeps no state and sends the whole conversation each time:
	// nothing is gained by the API keeping the response, which Chat
	// Completions does not by default either.
	p := responses.ResponseNewParams{Model: shared.ResponsesModel(m.s.Name), Store: oai.Bool(false)}
	if req.System != "" {
		p.Instructions = oai.String(req.System)
	}
	tools := req.Tools
	var search string
	var deferred map[string]*responses.FunctionToolParam
	if len(req.Deferred) > 0 {
		if len(tools) == 0 {
			return p, "", fmt.Errorf("openai: %d deferred tools and no tool to search them (the first of Request.Tools)", len(req.Deferred))
		}
		d := tools[0]
		schema, err := check.Tools("openai", tools[:1], func(_ tool.Definition, s json.RawMessage) json.RawMessage { return s })
		if err != nil {
			return p, "", err
		}
		ts := responses.ToolSearchToolParam{Execution: responses.ToolSearchToolExecutionClient, Parameters: schema[0]}
		if d.Description != "" {
			ts.Description = oai.String(d.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfToolSearch: &ts})
		search, tools = d.Name, tools[1:]
		// Each made once, marked defer_loading, for the searches that load
		// it; one that would fail is refused now, not when a search finds it.
		loadable, err := check.Tools("openai", req.Deferred, func(d tool.Definition, s json.RawMessage) *responses.FunctionToolParam {
			return m.function(d, s, true)
		})
		if err != nil {
			return p, "", err
		}
		deferred = make(map[string]*responses.FunctionToolParam, len(loadable))
		for i, d := range req.Deferred {
			deferred[d.Name] = loadable[i]
		}
	}
	fns, err := check.Tools("openai", tools, m.functionTool)
	if err != nil {
		return p, "", err
	}
	for _, f := range fns {
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: f})
	}
	input, err := m.input(req.Messages, search, deferred)
	if err != nil {
		return p, "", err
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	n, err := m.s.MaxTokens(req.MaxTokens)
	if err != nil {
		return p, "", err
	}
	if n > 0 {
		p.MaxOutputTokens = oai.Int(int64(n))
	}
	if req.Temperature != nil {
		p.Temperature = oai.Float(*req.Temperature)
	}
	return p, search, nil
}

// functionTool encodes a definition as a function tool, written here with
// the schema as raw JSON and handed to the SDK as an override, as on Chat
// Completions. "strict" is always sent: the Responses API takes its absence
// as true, which a schema not lowered for it fails.
func (m *Model) functionTool(d tool.Definition, schema json.RawMessage) *responses.FunctionToolParam {
	return m.function(d, schema, false)
}

// function is d's function tool; deferred marks it defer_loading.
func (m *Model) function(d tool.Definition, schema json.RawMessage, deferred bool) *responses.FunctionToolParam {
	f := param.Override[responses.FunctionToolParam](functionJSON(d, schema, d.Strict && !m.noStrict, deferred))
	return &f
}

// functionJSON is a function tool's JSON; deferred marks it defer_loading.
func functionJSON(d tool.Definition, schema json.RawMessage, strict, deferred bool) json.RawMessage {
	// Marshal cannot fail: the schema is valid JSON and the rest are
	// strings and bools.
	fn, _ := json.Marshal(struct {
		Type         string          `json:"type"`
		Name         string          `json:"name"`
		Description  string          `json:"description,omitempty"`
		Parameters   json.RawMessage `json:"parameters"`
		Strict       bool            `json:"strict"`
		DeferLoading bool            `json:"defer_loading,omitempty"`
	}{"function", d.Name, d.Description, schema, strict, deferred})
	return fn
}

// input maps the conversation onto input items. The calls of the search
// tool go as tool_search_call items, and their results as
// tool_search_output items that load the deferred tools they reference; a
// reference to a tool that is not deferred in this request loads nothing.
func (m *Model) input(in []llm.Message, search string, deferred map[string]*responses.FunctionToolParam) (responses.ResponseInputParam, error) {
	var out responses.ResponseInputParam
	searches := map[string]bool{} // the IDs of the search tool's calls
	for i, msg := range in {
		switch msg.Role {
		case llm.RoleUser:
			out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role: responses.EasyInputMessageRoleUser, Content: m.content(msg.Parts),
			}})
		case llm.RoleAssistant:
			if text := msg.Text(); text != "" {
				out = append(out, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
					Role: responses.EasyInputMessageRoleAssistant, Content: responses.EasyInputMessageContentUnionParam{OfString: oai.String(text)},
				}})
			}
			for _, c := range msg.ToolCalls {
				if search != "" && c.Name == search {
					searches[c.ID] = true
					out = append(out, responses.ResponseInputItemUnionParam{OfToolSearchCall: &responses.ResponseInputItemToolSearchCallParam{
						CallID: oai.String(c.ID), Arguments: argsObject(c.Arguments), Execution: "client", Status: "completed",
					}})
					continue
				}
				out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
					CallID: c.ID, Name: c.Name, Arguments: string(modelio.Args(c.Arguments)),
				}})
			}
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("openai: message %d: tool result without a call ID", i)
			}
			if searches[msg.ToolCallID] {
				out = append(out, responses.ResponseInputItemUnionParam{OfToolSearchOutput: loaded(msg, deferred)})
				continue
			}
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: oai.String(msg.ToolCallID), Output: m.output(msg.Parts),
			}})
		default:
			return nil, fmt.Errorf("openai: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// loaded is the tool_search_output that answers a search: the definitions
// of the deferred tools its result references, each once. Its text has no
// place there; the definitions say what it listed.
func loaded(msg llm.Message, deferred map[string]*responses.FunctionToolParam) *responses.ResponseToolSearchOutputItemParam {
	o := &responses.ResponseToolSearchOutputItemParam{
		CallID:    oai.String(msg.ToolCallID),
		Execution: responses.ResponseToolSearchOutputItemParamExecutionClient,
		Status:    responses.ResponseToolSearchOutputItemParamStatusCompleted,
		// Not nil: the API requires the list, empty when nothing was found.
		Tools: []responses.ResponseToolSearchOutputItemParamToolUnion{},
	}
	seen := map[string]bool{}
	for _, name := range msg.References {
		f, ok := deferred[name]
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		o.Tools = append(o.Tools, responses.ResponseToolSearchOutputItemParamToolUnion{OfFunction: f})
	}
	return o
}

// content maps user content: text alone as a string, anything else as
// input_text and input_image parts.
func (m *Model) content(parts []tool.Part) responses.EasyInputMessageContentUnionParam {
	if !m.s.Vision() {
		parts = modelio.TextOnly(parts)
	}
	if res := (tool.Reply{Parts: parts}); !res.HasImages() {
		return responses.EasyInputMessageContentUnionParam{OfString: oai.String(res.Text())}
	}
	var list responses.ResponseInputMessageContentListParam
	for _, p := range parts {
		switch p := p.(type) {
		case tool.TextPart:
			if p.Text != "" {
				list = append(list, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: p.Text}})
			}
		case tool.ImagePart:
			list = append(list, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				Detail: responses.ResponseInputImageDetailAuto, ImageURL: oai.String(dataURL(p)),
			}})
		}
	}
	return responses.EasyInputMessageContentUnionParam{OfInputItemContentList: list}
}

// output maps a tool result: text alone as a string, and with images, which
// a function_call_output takes, as input_text and input_image parts.
func (m *Model) output(parts []tool.Part) responses.ResponseInputItemFunctionCallOutputOutputUnionParam {
	if !m.s.Vision() {
		parts = modelio.TextOnly(parts)
	}
	if res := (tool.Reply{Parts: parts}); !res.HasImages() {
		return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: oai.String(res.Text())}
	}
	var list responses.ResponseFunctionCallOutputItemListParam
	for _, p := range parts {
		switch p := p.(type) {
		case tool.TextPart:
			if p.Text != "" {
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: p.Text}})
			}
		case tool.ImagePart:
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: oai.String(dataURL(p))}})
		}
	}
	return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
}

func dataURL(img tool.ImagePart) string {
	return "data:" + img.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// argsObject returns the arguments as the JSON object a tool_search_call
// holds; arguments that are not one are sent as {}, rather than failing the
// whole conversation.
func argsObject(args json.RawMessage) json.RawMessage {
	// Args turns blank arguments into {}, so trimmed is never empty.
	trimmed := bytes.TrimSpace(modelio.Args(args))
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return json.RawMessage("{}")
	}
	return trimmed
}

// responsesResponse reads the answer's messages, function calls and
// client-executed tool_search calls, the last as calls of the search tool;
// other items (reasoning, the server's own tools) are left out. A response
// that failed has no answer: it is an error.
func responsesResponse(r *responses.Response, search string) (*llm.Response, error) {
	if r.Status == responses.ResponseStatusFailed {
		return nil, fmt.Errorf("openai: the response failed: %s: %s", r.Error.Code, r.Error.Message)
	}
	msg := llm.Message{Role: llm.RoleAssistant}
	refused := false
	for _, item := range r.Output {
		switch item.Type {
		case "message":
			for _, c := range item.AsMessage().Content {
				switch c.Type {
				case "output_text":
					msg.Parts = append(msg.Parts, tool.TextPart{Text: c.Text})
				case "refusal":
					msg.Parts = append(msg.Parts, tool.TextPart{Text: c.Refusal})
					refused = true
				}
			}
		case "function_call":
			fc := item.AsFunctionCall()
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: fc.CallID, Name: fc.Name, Arguments: modelio.Args(json.RawMessage(fc.Arguments))})
		case "tool_search_call":
			tc := item.AsToolSearchCall()
			if search == "" || tc.Execution != "client" {
				continue
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.CallID, Name: search, Arguments: modelio.Args(json.RawMessage(tc.JSON.Arguments.Raw()))})
		}
	}
	reason := r.IncompleteDetails.Reason
	resp := &llm.Response{
		Message:          msg,
		VendorStopReason: string(r.Status),
		Usage: llm.Usage{
			InputTokens:       int(r.Usage.InputTokens),
			OutputTokens:      int(r.Usage.OutputTokens),
			CachedInputTokens: int(r.Usage.InputTokensDetails.CachedTokens),
		},
	}
	if reason != "" {
		resp.VendorStopReason = reason
	}
	switch {
	case refused || reason == "content_filter":
		resp.StopReason = llm.StopRefusal
	case reason == "max_output_tokens":
		resp.StopReason = llm.StopMaxTokens
	case len(msg.ToolCalls) > 0:
		resp.StopReason = llm.StopToolUse
	case r.Status == responses.ResponseStatusCompleted:
		resp.StopReason = llm.StopEndTurn
	default:
		resp.StopReason = llm.StopOther
	}
	return resp, nil
}
