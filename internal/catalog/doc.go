// Package catalog is the engine behind package toolset: many MCP servers
// from one config as one catalog, named and lowered for a vendor, each tool
// pinned, checked and quarantined. Package toolset is its facade for agent
// authors, and its doc says what a toolset promises; the gateway and the
// command line use this package directly, for what an agent author does
// not need:
//
//   - a [Snapshot] of the catalog, the turn's definitions with calls that
//     return the server's result as sent ([Snapshot.CallResult]) or raw,
//     byte for byte ([Snapshot.CallRaw]), and the server and tool a name
//     stands for ([Snapshot.Lookup]);
//   - what the gateway serves besides: whether a tool is offered
//     ([Toolset.Accept]), a signal when the catalog changed
//     ([Toolset.Changed]), each server's instructions
//     ([Toolset.Instructions]);
//   - functional options ([Option]), among them each server's client options
//     ([WithServerOptions]); a [Loader] that takes
//     variables from elsewhere than the environment; a server's provider made
//     from its config ([ProviderOf]).
//
// Where things live: the file's format, expansion and checks in config.go,
// expand.go and validate.go, a config printed without its secrets in
// print.go; starting and status in toolset.go (each server's provider
// reconnects); naming, lowering, pinning and quarantine in catalog.go; the
// snapshot and its calls in snapshot.go, relay.go and raw.go; OAuth from
// the config in auth.go; telemetry in telemetry.go.
//
// Zero is the default in every field and option (a nil telemetry provider
// is the global one); a negative [ServerConfig].CallTimeout means no bound,
// and a negative [ServerConfig].Timeout, a bound that protects the host
// from a server that never answers, is refused by [Config.Validate].
package catalog
