// Package agent is the host side of an agent on MCP tools: an [Agent] runs
// the tool loop between a model ([llm.Model]) and its tools (local
// [tool.Tool] values tried first, then a [tool.Handler] such as a composition
// of MCP providers), behind an optional [policy.Policy].
//
// What the model reads is decided here:
//
//   - The system prompt is the agent's own prompt, then the servers'
//     instructions, each inside a block the server's text cannot close, with a
//     preamble saying they grant no permission, then the skills the servers
//     publish ([SkillSet]), one line each. It is composed once, so it is
//     byte-identical on every turn and a vendor's prompt cache keeps hitting.
//   - A skill is read only when the model takes it up (load_skill, then
//     read_skill_file for its other files), every read verified against the
//     server's listing by package skills.
//   - A call to a tool that does not exist is answered with the name the
//     model most likely meant ([tool.Suggest]), never run on a guess.
//   - A call that is not served, a tool that failed, a refusal, a timeout: each
//     comes back to the model as a tool result in words that say which, so it
//     can act on it. Only errors that make going on pointless (a bad
//     configuration, a server that cannot be reached at all, a cancelled
//     context) end [Agent.Run].
//   - Images in results reach a model that takes images as images, and a model
//     that does not as text with [tool.ImageMark] in their place. Text over the
//     result budget is cut with a note saying how much was left out.
//   - A catalog whose definitions would exceed a token budget is not sent
//     whole: the model gets a tool to search the catalog and one to load what
//     it needs, and loaded tools join the next turn.
package agent
