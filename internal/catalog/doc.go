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
//     beyond its [mcptool.Options] ([WithServerOptions]), and each server's
//     core provider ([Toolset.Provider]).
//
// The config is package toolset/config's, which this package imports. Each
// server's provider is made as a user makes one, by mcptool from the host's
// Options, and the catalog adds what it needs to the core behind it
// (provider.go). Where the rest lives: starting and status in toolset.go
// (each server's provider reconnects); naming, lowering, pinning and
// quarantine in catalog.go; the snapshot and its calls in snapshot.go,
// relay.go and raw.go; OAuth from the config in auth.go; telemetry in
// telemetry.go.
//
// Zero is the default in every field and option (a nil telemetry provider
// is the global one); a negative config.Server.CallTimeout means no bound,
// and a negative Timeout, a bound that protects the host from a server that
// never answers, is refused by config.Config.Validate.
package catalog
