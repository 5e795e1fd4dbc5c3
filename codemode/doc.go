// Package codemode turns a [tool.Set] into an API a model programs
// against: JavaScript, run in a sandbox, in which each tool is an async
// function. A model that writes one script instead of calling tools one
// turn at a time spends fewer turns, and the intermediate results stay in
// the script instead of passing through its context: on the task of
// TestModesTokens in package agent (20 notes added, searched and counted
// by tag, on the demo server) a model sends and receives 29% of the tokens
// it does with the tools offered directly.
//
// A [Runtime] serves one Set. [Runtime.Run] runs a script for a person or
// a host; [Runtime.Offer] gives a model two tools: run_code, whose
// description names the servers and not the tools (so what a model is
// sent on every turn does not grow with the catalog: 172 tokens for 201
// tools, where progressive disclosure sends 188), and describe_tools, which
// answers the TypeScript declarations of the tools a query names or
// matches. [Runtime.Declarations] gives the same declarations. Package
// agent's code mode (agent.ModeCode) uses it over the tools a run's policy
// lets through.
//
// # The API
//
// A script is the body of an async function; what it returns (as JSON) and
// what it writes with console.log come back. Each tool is
// tools.<server>.<tool>(args), a tool without a server (tool.Func)
// tools.local.<tool>: the names made identifiers as a vendor's names are
// made valid (schema.Namer's rule, '-' as '_', a hash suffix when two
// would collide or a name is too long), each tool at a path of its own.
// callTool(name, args) calls a tool by the Set's name, its alias
// mcp__<server>__<tool> or its path. A call returns a promise, and
// Promise.all makes calls in parallel, at most MaxInFlight at once. It
// resolves to the tool's structured content when there is some, else its
// text; when the result has images, to its parts in order, text as
// strings and each image as {type: "image", mimeType, bytes} (with its
// base64 data only when the call asks, with the options
// {images: "base64"} after the arguments). A failed call rejects with an
// Error whose stack points at the call: name ToolError and the tool's
// message for a tool that failed (isError), RefusedError for a call a gate
// refused, ReferenceError for a tool that is not there, CallError for one
// that could not be made; its tool property is the tool's path. A script
// that does not catch one ends with a [ScriptError] whose Err is the
// call's error. A call the script did not wait for is waited for before
// the run ends, not cancelled, so its effect is whole.
//
// Declarations are rendered by [schema.Declaration], which reads a schema
// as the vendor lowering does: a tool's description and its properties'
// are doc comments, cleaned of what a reader cannot see and unable to end
// their comment.
//
// # The sandbox
//
// The interpreter is QuickJS, translated to Go (modernc.org/quickjs): a
// run has an interpreter of its own, on the goroutine that called Run,
// with nothing of the host in it but tools, callTool and console. There is
// no module loader (import fails), no file system, network, timer or
// process, and no way to wait but on a tool call. Every call a script
// makes goes to the Set's handler, as the model's own call would: behind
// a policy's gate ([policy.Policy.Gate]) it is judged under every name
// of the tool and asked of the approver, and the tool's handler checks its
// arguments against its schema before anything is sent. A tool the Set
// does not offer is not in the API; naming it anyway (callTool) reaches
// the gate, which refuses it, or the handler, which does not serve it.
// Each call runs in the context of the run, so a host's telemetry nests
// it in the span of whatever ran the script.
//
// Each run has budgets ([Config]), each with a default and a
// [BudgetError] that names it when reached: wall time (Timeout, which
// cancels the calls in flight: an MCP server is told), CPU (CPUTime, the
// time the interpreter runs: an endless loop), memory (Memory: the
// interpreter's heap has a hard limit, so an endless allocation is
// stopped with the host's memory bounded), tool calls (MaxCalls), calls
// in flight (MaxInFlight: the others wait), and output (MaxOutput, console
// and return value). A call's arguments are at most 1 MiB. The script
// cannot catch a budget's stop, but the interpreter's error when its heap
// is full, which a script may catch, gives it no more memory. A run's
// context cancels it and its calls.
//
// The interpreter builds on the platforms modernc.org/quickjs supports
// (Linux, macOS, FreeBSD and Windows on the usual architectures);
// elsewhere Run fails, saying so.
//
// Options: a [Config], zero the default in every field; a negative budget
// is refused by [New], since each protects the host.
package codemode
