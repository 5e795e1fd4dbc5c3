package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/tool"
)

// The tools a client that opted into progressive disclosure is served
// instead of the catalog.
const (
	findToolsName = "find_tools"
	callToolName  = "call_tool"
	// maxFound bounds one search's answer.
	maxFound = 12
)

var (
	findTool = &mcp.Tool{
		Name:        findToolsName,
		Description: "Search the tools available through this server by what they do. Returns the best matches with their names, descriptions and input schemas; run one with call_tool.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words describing the task, e.g. \"search notes\" or \"create calendar event\""}},"required":["query"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}
	callTool = &mcp.Tool{
		Name:        callToolName,
		Description: "Run a tool found with find_tools, by its name, with arguments that match its input schema.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the tool's name, as find_tools gave it"},"arguments":{"type":"object","description":"the tool's arguments"}},"required":["name"]}`),
	}
)

// A found tool is one match of find_tools, as its structured result lists it.
type found struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// addDisclosure gives s find_tools and call_tool over the catalog served
// now (the policy applied), in place of the catalog's own tools.
func (g *Gateway) addDisclosure(s *mcp.Server) {
	s.AddTool(findTool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return answer(findToolsName, &tool.RefusedError{Name: findToolsName, Message: "the arguments must be an object with a string \"query\""})
		}
		hits, n := g.searchIndex().Search(in.Query, maxFound, g.visible(ctx))
		out := struct {
			Tools []found `json:"tools"`
			More  int     `json:"more,omitempty"`
		}{Tools: []found{}, More: n - len(hits)}
		for _, d := range hits {
			out.Tools = append(out.Tools, found{d.Name, d.Description, d.InputSchema})
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		text := string(data)
		if len(out.Tools) == 0 {
			text = fmt.Sprintf("No tool matches %q. Try other words.", in.Query)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(data)}, nil
	})
	s.AddTool(callTool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || in.Name == "" {
			return answer(callToolName, &tool.RefusedError{Name: callToolName, Message: "the arguments must be an object with the tool's \"name\" and its \"arguments\""})
		}
		raw, res, err := g.call(ctx, req.Session, relayTo(req), req.Params.GetProgressToken(), in.Name, in.Arguments)
		if errors.Is(err, tool.ErrUnserved) {
			// An unknown name is the model's to correct, not a protocol error.
			err = &tool.RefusedError{Name: in.Name, Message: fmt.Sprintf("no tool is named %q; use find_tools", in.Name)}
		}
		switch {
		case err != nil:
			return answer(in.Name, err)
		case raw != nil:
			return passed(ctx, raw), nil
		}
		return res, nil
	})
}
