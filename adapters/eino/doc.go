// Package eino offers mcpbridge's tools to CloudWeGo's eino
// (github.com/cloudwego/eino): any [tool.Source] (an MCP server's
// mcptool.Provider, a toolset.Toolset of many servers, local tool.Func
// tools) becomes eino tools that a ToolsNode, a graph or a ReAct agent
// (flow/agent/react) runs, with what mcpbridge does for every call:
// arguments checked against the tool's schema before anything is sent,
// schemas lowered for the chat model's vendor, results converted (images as
// images), a policy's gates, bounds on everything a server sends, and a lost
// server reconnected.
//
// [Tools] takes one Set from the source and returns an [Offer]: the tools,
// each an eino EnhancedInvokableTool (text and images in, as
// *schema.ToolResult) or, with [Options].TextOnly, an InvokableTool (text),
// and the servers' instructions and skills for the system prompt. A tool
// that failed (an MCP result marked isError), a call a policy refused, or a
// server lost during the call is a result the model reads, in words that
// say which, never an error that ends the agent's run; only what makes going
// on pointless (a server that cannot be reached, the context done) is.
// Cancelling the run's context cancels the call on the server.
//
// eino binds tools to an agent as it is built, and to one run with
// react.WithTools: take an Offer for each run, and a server's new tools
// (list_changed) are the next run's.
//
// The module is apart from mcpbridge's own, so that a user of mcpbridge
// compiles no framework.
//
// [tool.Source]: https://pkg.go.dev/github.com/mcpbridge/mcpbridge/tool#Source
package eino
