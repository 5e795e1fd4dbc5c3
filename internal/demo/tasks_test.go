package demo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// To a client that does not declare the tasks extension (here over
// streamable HTTP, on protocol 2025-11-25), the task tools answer at once:
// tag_report asks for its tag by elicitation, broken_job fails.
func TestTaskToolsWithoutTheExtension(t *testing.T) {
	asked := 0
	cs := connectHTTP(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"tag": "home"}}, nil
	}})
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "tag_report", Arguments: map[string]any{}})
	if err != nil || asked != 1 || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `report on "home"`) {
		t.Fatalf("tag_report: %+v, %v, asked %d times", res, err, asked)
	}
	var wire *jsonrpc.Error
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "broken_job", Arguments: map[string]any{}}); !errors.As(err, &wire) || wire.Message != "the job broke halfway" {
		t.Fatalf("broken_job: %v", err)
	}
}

// A task is asked about by a client that declared the extension, and by
// an id the server gave.
func TestTaskMethodsRefused(t *testing.T) {
	type params struct {
		mcp.ParamsBase
		TaskID string `json:"taskId"`
	}
	for _, c := range []struct {
		declare bool
		code    int64
	}{{false, mcp.CodeMissingRequiredClientCapabilities}, {true, jsonrpc.CodeInvalidParams}} {
		opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
		if c.declare {
			opts.Capabilities.AddExtension(tasksExtension, nil)
		}
		client := mcp.NewClient(clientImpl, opts)
		if err := mcp.AddSendingCustomMethod[*params, *taskAck](client, "tasks/get"); err != nil {
			t.Fatal(err)
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := New().Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.Connect(t.Context(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = mcp.CallCustomMethod[*params, *taskAck](t.Context(), cs, "tasks/get", &params{TaskID: "nope"})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != c.code {
			t.Errorf("declared %v: %v; want code %d", c.declare, err, c.code)
		}
		cs.Close()
		ss.Wait()
	}
}
