// Package tool is the host-side model of a tool that an agent offers a model:
// its [Definition], the [Handler] that runs a call, the [Result] the model
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
// type and says whether going on makes sense.
package tool
