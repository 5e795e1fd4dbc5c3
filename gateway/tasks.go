package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// tasksExtension is the identifier of the tasks extension of protocol
// 2026-07-28 (SEP-2663), which the gateway carries between a client that
// declares it and the servers that run its calls as tasks.
const tasksExtension = "io.modelcontextprotocol/tasks"

// addTasks serves the extension's requests about tasks on s, and turns the
// tools/call of a client that follows tasks, which its server made a task
// of, into that task under the gateway's id.
func (g *Gateway) addTasks(s *mcp.Server) {
	s.AddReceivingMiddleware(g.handTasks)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		mcp.AddReceivingCustomMethod(s, method, func(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*taskAnswer, error) {
			return g.relayTask(ctx, ss, method, p)
		})
	}
}

// handTasks answers a tools/call that became a task the client follows
// ([mcpclient.HandedTask]) with the task as the server created it, under the
// gateway's id.
func (g *Gateway) handTasks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var handed *mcpclient.HandedTask
		if method != "tools/call" || !errors.As(err, &handed) {
			return res, err
		}
		h := taskHandle{handed.Server, callerOf(ctx).name, handed.ID}
		return taskResult(handed.Created, h, g.tasks.format(h))
	}
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel;
// inputResponses, tasks/update's answers, are passed on as they came.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// relayTask sends method about the task p names to the server that runs
// it, under the server's id, and answers with the server's result under
// the gateway's. A task id the gateway (or a replica sharing its key) did
// not give, gave another client, or that was altered, is a task not found,
// in the same words whatever was wrong with it.
func (g *Gateway) relayTask(ctx context.Context, ss *mcp.ServerSession, method string, p *taskParams) (*taskAnswer, error) {
	h, ok := g.tasks.parse(p.TaskID)
	if !ok || h.client != callerOf(ctx).name {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: no task %q", method, p.TaskID)}
	}
	server, ok := g.ts.Provider(h.server)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: task %q: its server is not running", method, p.TaskID)}
	}
	ctx, leave, err := g.enter(ctx, h.server, ss) // inflight.go
	if err != nil {
		return nil, err
	}
	defer leave()
	raw, err := server.Request(ctx, method, &taskParams{TaskID: h.id, InputResponses: p.InputResponses})
	if err != nil {
		return nil, relayError(err)
	}
	// The id as the client gave it, though the gateway's key may now be
	// another: a client matches the answer to its task by id.
	return taskResult(raw, h, p.TaskID)
}

// A taskAnswer is a server's answer about a task, passed on as it came but
// for the task's id, which is the gateway's, and _meta, whose server info
// go-sdk sets to the gateway's.
type taskAnswer struct {
	mcp.ResultBase
	fields map[string]json.RawMessage
}

// taskResult reads a server's answer about the task h, whose id the
// client knows is id.
func taskResult(raw json.RawMessage, h taskHandle, id string) (*taskAnswer, error) {
	a := &taskAnswer{}
	if err := json.Unmarshal(raw, &a.fields); err != nil || a.fields == nil {
		return nil, fmt.Errorf("gateway: server %q: task %q: its answer is not a JSON object", h.server, h.id)
	}
	if meta, ok := a.fields["_meta"]; ok {
		delete(a.fields, "_meta")
		// Meta the server wrote that is not an object is dropped.
		_ = json.Unmarshal(meta, &a.Meta)
		delete(a.Meta, mcp.MetaKeyServerInfo)
	}
	if _, ok := a.fields["taskId"]; ok {
		data, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		a.fields["taskId"] = data
	}
	return a, nil
}

func (a *taskAnswer) MarshalJSON() ([]byte, error) {
	if len(a.Meta) > 0 {
		meta, err := json.Marshal(a.Meta)
		if err != nil {
			return nil, err
		}
		a.fields["_meta"] = meta
	}
	return json.Marshal(a.fields)
}
