// Package genkit offers mcpbridge's tools to Genkit for Go
// (github.com/firebase/genkit/go): any [tool.Source] (an MCP server's
// mcptool.Provider, a toolset.Toolset of many servers, local tool.Func
// tools) becomes Genkit tools that Generate runs, with what mcpbridge does
// for every call: arguments checked against the tool's own schema before
// anything is sent, schemas lowered for the model's vendor, results
// converted (images as media), a policy's gates, bounds on everything a
// server sends, and a lost server reconnected.
//
// [Tools] takes one Set from the source and returns an [Offer]: the tools,
// each a multipart tool (the text as the tool response's output, images as
// media parts beside it), and the servers' instructions and skills for the
// system prompt (ai.WithSystem). A tool that failed (an MCP result marked
// isError), a call a policy refused, or a server lost during the call is a
// response the model reads, in words that say which, never an error that
// ends Generate; only what makes going on pointless (a server that cannot
// be reached, the context done) is. Cancelling Generate's context cancels
// the call on the server.
//
// Genkit takes tools for each Generate (ai.WithTools): take an Offer for
// each, and a server's new tools (list_changed) are the next one's.
//
// The package is named genkit, as Genkit's own is: import it under another
// name (mcpgenkit) beside github.com/firebase/genkit/go/genkit. The module
// is apart from mcpbridge's own, so that a user of mcpbridge compiles no
// framework.
//
// [tool.Source]: https://pkg.go.dev/github.com/mcpbridge/mcpbridge/tool#Source
package genkit
