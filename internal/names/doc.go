// Package names finds the tool a called name means: the alias
// mcp__<server>__<tool> and its one reading rule ([Readings], [Resolve]),
// and the tools that best match a query ([Index], behind find_tools and
// code mode's describe_tools). Every
// holder of tools (a provider, a toolset, the gateway, the agent, the
// policy) reads names by these rules; the alias itself is made by
// tool.Origin.Alias.
package names
