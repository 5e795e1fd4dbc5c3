// Package codemode turns a [tool.Set] into an API a model programs
// against: JavaScript, run in a sandbox, in which each tool is an async
// function. A model that writes one script instead of calling tools one
// turn at a time spends fewer turns, and the intermediate results stay in
// the script: on the task of TestModesTokens in package agent a model
// sends and receives 29% of the tokens it does with the tools offered
// directly.
//
// A [Runtime] serves one Set. [Runtime.Run] runs a script for a person or
// a host; [Runtime.Offer] gives a model two tools: run_code, whose
// description names the servers and not the tools (so what a model is sent
// every turn does not grow with the catalog), and describe_tools, which
// answers the TypeScript declarations ([Runtime.Declarations]) of the
// tools a query names or matches. Package agent's code mode
// (agent.Config.Code, given a [Config]) uses it over the tools a run's
// policy lets through.
//
// # The API
//
// A script is the body of an async function; what it returns (as JSON) and
// what it writes with console.log come back. Each tool is
// tools.<server>.<tool>(args), a local tool tools.local.<tool>, the names
// made identifiers by the vendors' rule; callTool(name, args) calls a tool
// by the Set's name, its alias or its path. A call resolves to the tool's
// structured content when there is some, else its text (with images, to
// its parts in order, each image an object that describes it); an image
// object the script returns is in [Output] Images, and reaches the model
// as an image through run_code. Promise.all makes calls in parallel. A failed call
// rejects with an Error whose name says why: ToolError (the tool failed),
// RefusedError (a gate refused it), ReferenceError (no such tool),
// CallError (it could not be made); one the script does not catch ends the
// run with a [ScriptError]. A call the script did not wait for is waited
// for, not cancelled, so its effect is whole.
//
// # The sandbox
//
// The interpreter is QuickJS translated to Go (modernc.org/quickjs): an
// interpreter per run, with nothing of the host in it but tools, callTool
// and console: no module, file system, network, timer or process. Every
// call a script makes goes to the Set's handler, as the model's own would:
// behind a policy's gate (policy.Policy.Gate) it is judged under every
// name of the tool, and the tool's handler checks its arguments before
// anything is sent. A tool the Set does not offer is not in the API.
//
// Each run has budgets ([Config]), each with a default and a [BudgetError]
// that names it when reached: wall time (Timeout, which cancels the calls
// in flight), CPU (CPUTime), memory (Memory: a hard limit on the
// interpreter's heap, so an endless allocation stops with the host's
// memory bounded), tool calls (MaxCalls), calls in flight (MaxInFlight),
// output (MaxOutput) and results taken in (MaxResultBytes: a result
// enters the interpreter as the bytes it is, one copy, never escaped). A
// call's arguments are at most 1 MiB. A script
// cannot catch a budget's stop.
//
// The interpreter checks its own time every 10,000 steps of bytecode,
// never inside a built-in function, so one call of a built-in (an indexOf
// over a long string, the sort of a large array) can run for minutes
// without a check. The host therefore holds the budgets from outside too,
// and how far depends on where the interpreter runs:
//
//   - In a process of its own, where the program calls [ServeIfChild]
//     first in main (mcpbridge-chat does): the program itself started
//     again, with no environment, talking to the host over two pipes, in
//     a process group the host kills when a budget is reached (the time,
//     the interpreter busy a half second past its CPU budget, the output,
//     the calls) or ctx ends; the system limits its CPU time and address
//     space besides, and it exits if the host does. Every budget holds,
//     whatever the script runs, within a second.
//   - Otherwise, on a goroutine of the host's process: Run still returns
//     within a second of the budget reached or of ctx's end, and the
//     interpreter's heap stays bounded, but a built-in that never yields
//     keeps that goroutine (and a CPU) busy until it returns.
//
// The interpreter builds where modernc.org/quickjs does (Linux, macOS,
// FreeBSD, Windows); elsewhere Run fails, saying so. A process of its own
// is for Unix systems.
//
// Options: a [Config], zero the default in every field; a negative budget
// is refused by [New], since each protects the host. The Examples run a
// script over local tools, offer a model the two tools, and stop one long
// built-in call in a process of its own.
package codemode
