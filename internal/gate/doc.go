// Package gate is the engine of package policy: allow and deny patterns
// judged under every name a tool goes by, then an approver. Its rule is
// the one policy's documentation states; policy.Policy is a [Policy], so
// the in-module hosts (the agent, the gateway, the apps host) convert one
// to the other and reach what a user does not: [Policy.For] (a policy that
// knows the names of a catalog's tools), [Policy.Allowed] and
// [Policy.Check] by name, and a [Resolver].
package gate
