// Package policy gates tool calls: allow and deny patterns over tool names,
// judged under every name a call goes by, and an approval hook asked before a
// call runs.
//
// A [Policy] gates a [tool.Set] ([Policy.Gate]): the tools it denies leave
// the Set, and a call it refuses never reaches the Set's handler and comes
// back as a [*tool.RefusedError] whose Message tells the model, in plain
// words, which rule refused it:
//
//	the tool "delete_file" is denied by policy pattern "delete_*"
//	the user declined to run "delete_file"
//
// [Policy.Check] judges one call by its name, for a host that runs calls
// its own way.
//
// # Patterns
//
// Patterns are globs with path.Match syntax (*, ?, [a-z], \ to escape),
// checked when the policy is made. Deny wins over allow; with no allow
// patterns, everything not denied is allowed.
//
// # Every name
//
// One MCP tool goes by several names: its own (search), the namespaced name a
// host offers when it serves many servers (kb_search), and the alias
// mcp__kb__search that some agents and prompts use. A call is judged under
// all of them, so that a tool refused under one name cannot be reached
// through another: Deny "delete_*" refuses delete_file, fs_delete_file and
// mcp__fs__delete_file alike. The policy learns the other names from the
// definitions of the Set it gates (each [tool.Definition] carries its
// server and its own name in its Origin; package agent and the gateway
// gate what they offer so); for a name no definition has, it knows the
// called name and, for an alias, its tool part, which is enough for a deny
// pattern on the tool's own name to hold.
//
// The rule is one, in the documentation of [Policy]: a deny matches any
// name of the tool, its own name as each vendor rewrites it included
// (delete.dir, offered as fs_delete_dir, is refused by delete_*); an allow
// matches a name the tool is served by: its final name, which includes its
// server when the host namespaces, and its alias. So an allow of github_*
// lets through the tools of server github (github_push) and not server
// notes's tool github_push (notes_github_push), and an alias the policy
// cannot resolve that may be read several ways when a name holds "__"
// never allows a call by itself. Write a deny against the tool's own name,
// an allow against the names the model is offered.
//
// # Approval
//
// An [Approver] is asked about each call the patterns let through, with the
// call's names, arguments and annotations; [AskUnlessReadOnly] asks only about
// tools not annotated read-only.
//
// Options: a Policy is described as data, a [Config]. Zero means the
// default in every field, so the zero Config allows every call without
// asking.
//
// A Policy holds no global state and starts no goroutines.
package policy
