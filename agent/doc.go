// Package agent is the host side of an agent on MCP tools: an [Agent] runs
// the tool loop between a model ([llm.Model]) and its tools, taken from
// [tool.Source] values (local tools, MCP providers, toolsets) as each run
// starts, behind an optional [policy.Policy].
//
// What the model reads is decided here:
//
//   - The system prompt is the agent's own prompt, then what the servers
//     bring with their tools ([tool.Set] Servers, each under the server's
//     name): their instructions, each inside a block the server's text
//     cannot close, with a preamble saying they grant no permission, then
//     their skills, one line each. It is composed as a run starts, in a
//     fixed order, so it is byte-identical on every turn and a vendor's
//     prompt cache keeps hitting.
//   - Every string a server sent that the host places in what it composes
//     for the model (instructions; skill ids, descriptions, file paths and
//     contents; tool names and descriptions in find_tools answers; the text
//     of a failure) goes through one rule first: escape sequences, control
//     characters but newline and tab, and invisible Unicode characters (bidi
//     controls, zero-width and tag characters) are removed, and every line
//     break becomes a newline. Where a line is expected the text is one
//     line, cut to a bound. A block of instructions cannot be closed because
//     every line of the server's text in it begins with "> ": the tag that
//     ends it and the headings around it are lines no server can write,
//     whatever look-alike it spells. A skill whose name or URI is not one
//     printable line is not offered. A tool's own result reaches the model
//     as the tool gave it.
//   - A skill is read only when the model takes it up (load_skill, then
//     read_skill_file for its other files), every read of an MCP server's
//     skill verified against the server's listing by its provider, which
//     reads its SKILL.md once, however many calls take it up at once.
//   - A resource link in a tool's result names its server. When a server of
//     the run has resources (its [tool.Server] Resources), the model
//     reads them with read_resource, the agent's own
//     tool, gated by the policy like any other: what it reads is converted
//     by the server's provider as a tool's result is, and fitted to the
//     model as every result is.
//   - A call to a tool that does not exist is answered with the name the
//     model most likely meant, never run on a guess.
//   - A call that is not served, a tool that failed, a refusal, a timeout: each
//     comes back to the model as a tool result in words that say which, so it
//     can act on it. Only errors that make going on pointless (a bad
//     configuration, a server that cannot be reached at all, a cancelled
//     context) end [Agent.Run].
//   - Images in results reach a model that takes images as images, and a model
//     that does not as text with "[image]" in their place. Text over the
//     result budget is cut with a note saying how much was left out.
//   - A catalog whose definitions would exceed a token budget is not sent
//     whole: the model gets a tool to search the catalog and one to load what
//     it needs, and loaded tools join the next turn. [Config.Mode] can
//     choose either way whatever the size, or code mode ([ModeCode]): the
//     model writes JavaScript against the tools (package codemode), each
//     call a script makes judged by the policy as its own would be.
//
// A call that needs the user's input (an MCP server's elicitation, a local
// tool's [tool.Elicit]) asks through [Config.Elicit], which each call's
// context carries.
//
// A run is traced by OpenTelemetry's GenAI conventions (version 1.41.1): an
// invoke_agent span around it, a chat span per model turn with the model's
// name and the tokens it used, and an execute_tool span per call, in which
// an MCP tool's client span and a policy's refusal (check_policy) nest, so
// one trace shows the whole run; a find_tools or load_tools call says what
// it found or loaded. See [Config.TracerProvider].
//
// Options: an agent is described as data, a [Config]. Zero means the
// default in every field (nil telemetry providers are OpenTelemetry's
// global ones); a negative budget ([Config.ResultBudget],
// [Config.ToolTokenBudget]) means no bound, and a negative
// [Config.MaxSteps] is refused by [New].
package agent
