// Package agent is the host side of an agent on MCP tools: an [Agent] runs
// the tool loop between a model ([llm.Model]) and its tools, taken from
// [tool.Source] values (local tools, MCP providers, toolsets) as each run
// starts, behind an optional [policy.Policy].
//
// What the model reads is decided here:
//
//   - The system prompt is the agent's own prompt, then what the servers
//     bring with their tools ([tool.Set] Servers, by the server's name):
//     their instructions, each in a block the server's text cannot close
//     (every line of it quoted "> "), with a preamble saying they grant no
//     permission, then their skills, one line each. It is composed as a run
//     starts, in a fixed order, so a vendor's prompt cache keeps hitting.
//   - Every string a server sent that the host places in what it composes
//     (instructions, skills, names and descriptions in find_tools answers,
//     the text of a failure) loses its escape sequences, control and
//     invisible characters first; a tool's own result reaches the model as
//     the tool gave it.
//   - A skill is read only when the model takes it up (load_skill, then
//     read_skill_file), every read of an MCP server's skill verified
//     against the server's listing. A server's resources are read with
//     read_resource, gated by the policy like any tool.
//   - A call to a tool that does not exist is answered with the name the
//     model most likely meant, never run on a guess. A call not served, a
//     tool that failed, a refusal, a timeout: each comes back to the model
//     in words that say which. Only what makes going on pointless (a bad
//     configuration, a server that cannot be reached, a cancelled context)
//     ends [Agent.Run].
//   - Images reach a model that takes images as images, and another as
//     "[image]"; text over the result budget is cut with a note.
//   - A catalog over the token budget is not sent whole: the model gets a
//     tool to search it and one to load what it needs. [Config.Mode] can
//     choose either way; [Config.Code] puts the agent in code mode: the
//     model writes JavaScript against the tools (package codemode, which
//     plugs in there so that an agent without it builds no interpreter),
//     each call a script makes the agent's own, judged by the policy and
//     shown to [Config.OnToolCall] as the model's would be.
//
// A call that needs the user's input (an MCP server's elicitation, a local
// tool's [tool.Elicit]) asks through [Config.Elicit]. A run is traced by
// OpenTelemetry's GenAI conventions: an invoke_agent span, a chat span per
// model turn, an execute_tool span per call in which an MCP tool's client
// span nests ([Config.TracerProvider]).
//
// Options: an agent is described as data, a [Config]. Zero means the
// default in every field (nil telemetry providers are OpenTelemetry's
// global ones); a negative budget ([Config.ResultBudget],
// [Config.ToolTokenBudget]) means no bound, and a negative
// [Config.MaxSteps] is refused by [New]. The Examples run an agent on a
// go-sdk server's tools, with skills, with a model of one's own, in code
// mode, and over a catalog too large to send whole.
package agent
