// Package names finds the tool a called name means: the alias
// mcp__<server>__<tool> and its one reading rule ([Readings], [Resolve]),
// and the tools a query's words name ([Search], behind find_tools). Every
// holder of tools (a provider, a toolset, the gateway, the agent, the
// policy) reads names by these rules; the alias itself is made by
// tool.Origin.Alias.
package names
