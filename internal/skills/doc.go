// Package skills is the host side of the MCP Skills extension
// (io.modelcontextprotocol/skills, SEP-2640): it lists the skills a server
// publishes, loads one on demand, and reads its files, verifying everything it
// reads against the server's own listing.
//
// A server that declares the extension answers skills/list with one entry per
// skill: the URI of its SKILL.md, the SKILL.md frontmatter rendered as a JSON
// object, and a manifest of every file of the skill with its SHA-256 digest and
// size. The files themselves are ordinary resources, read with resources/read.
//
// A [Client] keeps the extension's host-side promises:
//
//   - Listing reads no file. [Client.List] follows every page of skills/list,
//     with a page cap and a guard against a repeated cursor, and retrieves
//     nothing else; a SKILL.md is fetched only by [Client.Load], a supporting
//     file only by [Loaded.ReadFile].
//   - Every read is verified against the held entry: first the byte length
//     against the entry's size, then the SHA-256 digest. A SKILL.md's YAML
//     frontmatter is then parsed and compared, field by field, with the
//     listed frontmatter.
//   - Any mismatch refuses the skill with a [VerifyError] naming the skill, the
//     file and what differed (never the file's content), and the content is
//     not returned. The skill stays refused for as long as the server keeps
//     listing the same entry; a refreshed, different entry may be loaded anew.
//   - A file the entry does not list is never read while acting on the skill.
//   - An entry that breaks the extension's rules (no manifest, a digest in the
//     wrong form, a file outside the skill's directory, a name that does not
//     match its URI, a URI with white space or a character a reader cannot
//     see, ...) is never loaded: [Client.List] leaves it out and
//     [Client.Load] answers with an [EntryError].
//
// A Client works over one connected server, usually an *mcptool.Provider
// (see [Source]). Skill URIs are scoped to that server: a host with several
// servers keeps one Client per server and must not mix their skills up by URI
// or name.
//
// What a skill says is untrusted text from the server. A digest match proves
// only that the listing and the content agree, not that either is
// trustworthy; a host hands skill content to a model as it would any other
// server-provided text, tagged with the server it came from.
//
// Options: a Client takes functional options ([Option]); zero (or nil) means
// the default in each. The listing is bounded by its source, as every
// listing of the server is (the provider's page cap and its bounds on the
// entries and bytes in all).
package skills
