// Package tool is the host-side model of a tool that an agent offers a model:
// its [Definition], the [Handler] that runs a call, the [Reply] the model
// reads, and the errors that say why a call was not answered.
//
// The package depends on nothing but the standard library and a JSON Schema
// library; MCP servers ([github.com/mcpbridge/mcpbridge/mcptool]) and local Go
// functions ([Func]) both produce these types, so an agent treats them alike.
//
// Three errors name the three ways a call can go wrong for a reason the model
// should hear about:
//
//   - [UnservedError] (errors.Is(err, [ErrUnserved])): the handler does not
//     serve that name. [Compose] passes such a call to the next handler.
//   - [FailedError]: the tool ran and failed. The model should read the
//     message and may try again differently.
//   - [RefusedError]: a gate (a policy, an approval hook) said no.
//
// Anything else, a transport or configuration error, is the handler's own
// type, and says what it means by methods that [Retryable], [OutcomeUnknown]
// and [Fatal] read through any wrapping, so that a host (package agent)
// decides whether to go on without knowing any handler's error types.
//
// A host that shows a long call's progress passes a function in the call's
// context ([WithProgress]), where a handler that learns of progress (an
// MCP server's notifications) reports it. In the same
// way a host that can ask its user passes an [Elicitor] ([WithElicitor]),
// and a handler whose call needs the user's input (an MCP server's
// elicitation, a local tool's question) asks there ([Elicit]): a form of
// the MCP specification's restricted schema, whose answer is checked
// before it is sent, or a URL the host shows and never fetches.
//
// A [Source] offers tools: definitions and the handler that serves exactly
// them, together, one [Set] per turn. Local tools ([Func], [Join]), an MCP server
// and a whole catalog of servers are all sources.
//
// A tool of an MCP server also answers to its alias mcp__<server>__<tool>
// ([Origin.Alias]), read by one rule wherever a tool name is accepted: an
// alias names a tool only when exactly one of its readings (a server or
// tool name may hold "__") names a tool the holder has.
//
// Options: none; what a call needs beyond its name and arguments (a
// deadline, a progress function, an elicitor) travels in its context,
// where a zero context means none.
package tool
