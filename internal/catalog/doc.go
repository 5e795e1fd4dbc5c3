// Package toolset runs many MCP servers as one set of tools for an agent.
//
// It starts from the configuration people already keep: the mcpServers file
// of Claude Desktop, Cursor or Claude Code, or VS Code's servers file ([Load],
// [Parse]), checked all at once ([Config.Validate]) and turned server by
// server into [mcptool.Provider] values ([ServerConfig.Provider]).
//
// [Start] connects every enabled server at once, each within its own
// timeout. A server that fails is logged and left out, unless it is
// required: then nothing is left running and Start fails. Each server's
// tools are namespaced ({server}_{tool} by default), named and lowered for
// one model vendor ([WithVendor]: [schema.Namer], [schema.Lower]), and
// joined into one catalog; a tool whose schema the vendor cannot take, or
// whose input or output schema no validation could finish on
// ([schema.UnboundedError]), is held out ([Toolset.Quarantined]) while its
// server's other tools serve. Names are compared as the model will call
// them, after the vendor's rewrite, so that no server can take another's
// tool name or alias: two required servers claiming one name fail Start,
// and an optional server that claims a name another has is left out.
//
// A host takes a [Snapshot] per turn: its definitions and handler do not
// change during the turn, whatever the servers re-list meanwhile, so a
// vendor's prompt cache stays valid. The handler checks arguments against
// each tool's own schema before anything is sent, and accepts the alias
// mcp__<server>__<tool>. Every tool's definition is pinned by hash when first
// seen; a change arriving later is logged and put to [OnToolChanged], which
// may refuse it.
//
// [Toolset.Status] (and [OnStatus], during Start too) says where each
// server stands; [Toolset.Instructions] is ready for the agent's system
// prompt; [Toolset.Close] stops everything.
//
// Telemetry: every server's provider traces and measures as package
// mcptool describes, into the providers of [WithTracerProvider] and
// [WithMeterProvider] (OpenTelemetry's global ones by default); a call the
// set refuses is a validate_arguments span and a refusal counted.
//
// Options: what the servers are is data, a [Config] of [ServerConfig]
// values (read by a [Loader]); how the set runs them is functional options
// ([Option]) to [Start]. Zero means the default in every field and every
// option (a nil telemetry provider is the global one); a negative [ServerConfig.CallTimeout] means no bound, and a
// negative [ServerConfig.Timeout], a bound that protects the host from a
// server that never answers, is refused by [Config.Validate].
package catalog
