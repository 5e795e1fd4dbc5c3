// Package toolset runs many MCP servers as one set of tools for an agent.
//
// It starts from the configuration people already keep, read by package
// toolset/config: the mcpServers file of Claude Desktop, Cursor or Claude
// Code, or VS Code's servers file ([config.Load], [config.Parse]), or a
// [config.Config] built in Go. [Start] connects every enabled server at
// once, each within its own timeout, and returns a [Toolset]: a
// [tool.Source] whose [Toolset.Offer] is the catalog as it stands, taken
// once a turn (an agent.Agent takes one per run).
//
// What it promises:
//
//   - A config is checked whole before anything starts: Start (as
//     config.Config.Validate does) names every problem at once, by server
//     and key.
//   - A server that fails to start is logged and left out, unless it is
//     Required: then nothing is left running and Start fails ([StartError]).
//   - Each server's tools are namespaced ({server}_{tool} by default), named
//     and lowered for one model vendor ([Options].Vendor), and compared as
//     the model will call them, so that no server takes another's tool name
//     or alias. A tool the vendor cannot take, or whose schema no validation
//     could finish on, is held out ([Toolset.Quarantined]) while its
//     server's other tools serve.
//   - An offer does not change during its turn, whatever the servers
//     re-list meanwhile. Its handler checks arguments against each tool's
//     own schema before anything is sent, and takes the alias
//     mcp__<server>__<tool>.
//   - Every tool's definition is pinned when first seen; a change arriving
//     later is logged and put to [Options].OnToolChanged, which may refuse it.
//   - A server that dies is restarted and re-listed; a call it interrupted
//     is sent again only for a tool annotated read-only or idempotent.
//
// Options: what the servers are is data, a [config.Config] of
// [config.Server] values; how the set runs them is one [*Options] to [Start] (nil is the
// defaults), whose Server field gives each server's provider what a file
// cannot say (an elicitor, sampling, a reconnect policy) as
// [mcptool.Options].
//
// The Examples show a config started (ExampleStart), a tool quarantined,
// a change refused (ExampleOptions_onToolChanged) and a server's own
// provider reached (ExampleToolset_Provider).
package toolset
