package llm

import (
	"encoding/json"
	"strings"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A Role says who wrote a [Message].
type Role string

const (
	// RoleUser is the person (or the host speaking for them): text and images.
	RoleUser Role = "user"
	// RoleAssistant is the model: text and tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool is the result of one tool call, sent back to the model.
	RoleTool Role = "tool"
)

// A Message is one turn of a conversation. Which fields mean something
// depends on the Role:
//
//   - [RoleUser]: Parts (text and images).
//   - [RoleAssistant]: Parts (text) and ToolCalls.
//   - [RoleTool]: ToolCallID, ToolName, Parts (the tool's result, text and
//     images) and IsError.
//
// The system prompt is not a message: it is [Request.System], because both
// vendors treat it as a prefix apart from the turns (and cache it so).
//
// Build messages with [UserText] (or a Message of RoleUser with image
// parts), [ToolResult] and [ToolError]; an
// assistant message comes from [Response.Message] and goes back into the next
// [Request] unchanged, so that its tool call IDs match the results.
type Message struct {
	// Role says who wrote the message.
	Role Role
	// Parts are the content in order: [tool.TextPart] and [tool.ImagePart].
	Parts []tool.Part
	// ToolCalls are the calls an assistant message asks for, in the order the
	// model wrote them.
	ToolCalls []ToolCall
	// ToolCallID is, in a tool message, the ID of the call it answers.
	ToolCallID string
	// ToolName is, in a tool message, the name of the tool that was called.
	// Not every vendor takes it, but it lets a host read a transcript.
	ToolName string
	// References are, in a tool message, the names of deferred tools
	// ([Request.Deferred]) the result loads, so that the model may call
	// them from its next step. A Model that does not defer tools leaves
	// them out.
	References []string
	// IsError marks a tool message whose content reports a failure (a
	// [tool.FailedError] or [tool.RefusedError]), for vendors that have a flag
	// for it. The content itself should say what went wrong.
	IsError bool
}

// A ToolCall is the model asking for one tool to be run.
type ToolCall struct {
	// ID identifies the call; the tool message that answers it carries it as
	// ToolCallID.
	ID string
	// Name is the tool's name as the model wrote it.
	Name string
	// Arguments is the JSON arguments object as the model wrote it; a vendor
	// package turns "no arguments" into {}. It is not validated: a model may
	// write JSON that is not valid, and the tool should tell it so (see
	// [tool.Func]).
	Arguments json.RawMessage
}

// UserText returns a user message of one text part.
func UserText(text string) Message {
	return Message{Role: RoleUser, Parts: []tool.Part{tool.TextPart{Text: text}}}
}

// ToolResult returns the tool message that answers call with res: its parts
// are the result's parts, text and images; the structured content stays with
// the host (see [tool.Reply]).
func ToolResult(call ToolCall, res tool.Reply) Message {
	return Message{Role: RoleTool, ToolCallID: call.ID, ToolName: call.Name, Parts: res.Parts}
}

// ToolError returns the tool message that answers call with a failure the
// model should read, flagged as an error.
func ToolError(call ToolCall, text string) Message {
	return Message{
		Role:       RoleTool,
		ToolCallID: call.ID,
		ToolName:   call.Name,
		Parts:      []tool.Part{tool.TextPart{Text: text}},
		IsError:    true,
	}
}

// Text returns the message's text parts joined by newlines, leaving images
// out: what an assistant said, in one string.
func (m Message) Text() string {
	var b strings.Builder
	n := 0
	for _, p := range m.Parts {
		if t, ok := p.(tool.TextPart); ok {
			if n > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
			n++
		}
	}
	return b.String()
}
