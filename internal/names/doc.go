// Package names finds the tool a called name means: the alias
// mcp__<server>__<tool> and its one reading rule ([Readings], [Resolve]),
// the name a model most likely meant by a name no tool has ([Suggest]),
// and the tools that best match a query ([Index], behind find_tools and
// code mode's describe_tools). Every
// holder of tools (a provider, a toolset, the gateway, the agent, the
// policy) reads names by these rules; the alias itself is made by
// tool.Origin.Alias.
package names
