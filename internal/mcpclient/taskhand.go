package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// A HandedTask is the error a call made for a [Caller] with FollowsTasks
// returns when the server ran it as a task of the 2026-07-28 extension:
// the provider does not follow the task, which is the caller's to poll
// (tasks/get), answer (tasks/update) and cancel (tasks/cancel) through
// [Provider.Request], under the server's id. The call's outcome is not
// yet known: the task may still fail.
type HandedTask struct {
	// Server is the provider's name for the server; Tool the server's
	// name of the tool called.
	Server, Tool string
	// ID is the server's id of the task.
	ID string
	// Created is the server's answer to the call (a CreateTaskResult, of
	// resultType "task"), as it wrote it.
	Created json.RawMessage
}

func (h *HandedTask) Error() string {
	return format(h.Server, fmt.Sprintf("tool %q", h.Tool), fmt.Errorf("the call became task %q, handed to its caller", h.ID))
}

// handed returns the task t, which the call of tool on s became, as the
// caller's to follow, or nil when there is none (t is nil: the server
// answered the call itself) or the provider follows it: for a caller that
// does not follow tasks, or a task of the 2025-11-25 generation, whose
// requests come on the provider's own session.
func (p *Provider) handed(ctx context.Context, s *session, tool string, t *wireTask) *HandedTask {
	if t == nil || !callerOf(ctx).FollowsTasks || s.tasks.gen != extTasks || len(t.raw) == 0 {
		return nil
	}
	return &HandedTask{Server: p.name, Tool: tool, ID: t.TaskID, Created: t.raw}
}

// taskRoute returns ctx naming, for the Mcp-Name header, the task that
// a request of the extension about a task (tasks/get, tasks/update,
// tasks/cancel) sent raw is about, as the provider's own do.
func (s *session) taskRoute(ctx context.Context, method string, params json.RawMessage) context.Context {
	if s.tasks.gen != extTasks || !strings.HasPrefix(method, "tasks/") {
		return ctx
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(params, &p) != nil || p.TaskID == "" {
		return ctx
	}
	return withRoute(ctx, p.TaskID)
}
