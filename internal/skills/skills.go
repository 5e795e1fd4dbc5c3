package skills

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID identifies the Skills extension in a server's
// capabilities.extensions.
const ExtensionID = "io.modelcontextprotocol/skills"

// The per-skill limits of the extension. Hosts must accept skills up to
// these and may refuse larger ones; a Client refuses an entry that exceeds
// either, before reading anything.
const (
	// MaxFiles is the most files (SKILL.md included) a skill may list.
	MaxFiles = 512
	// MaxTotalSize is the most bytes, summed over a skill's files, a skill
	// may list; for a dynamic skill it bounds what is read.
	MaxTotalSize = 16 << 20
)

// A Source is a connected MCP server as a Client needs it.
// *mcpclient.Provider implements it.
type Source interface {
	// ServerExtensions returns the extensions the server declared, by
	// identifier.
	ServerExtensions() map[string]any
	// Request sends a JSON-RPC request and returns its raw result.
	Request(ctx context.Context, method string, params any) (json.RawMessage, error)
	// ListRaw follows the pages of a listing, the entries of each the
	// array under member, giving keep each entry as written, within the
	// bounds of every listing of the source (a repeated cursor, its pages,
	// and its entries and bytes in all).
	ListRaw(ctx context.Context, method, member string, keep func(entry json.RawMessage) bool) error
	// ReadResource reads the resource at uri.
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

// Declared reports whether extensions, a server's
// capabilities.extensions, declare the Skills extension.
func Declared(extensions map[string]any) bool {
	_, ok := extensions[ExtensionID]
	return ok
}

// A Skill is one entry of a server's listing: what a host shows a user or a
// model before anything of the skill is read.
type Skill struct {
	// URI is the resource URI of the skill's SKILL.md. It identifies the skill
	// within its server. A listed URI (and the URI of every listed file)
	// holds no white space, control or format character.
	URI string
	// Name is the skill's name (frontmatter "name", also the last segment of
	// its path). It is a label: two skills of one server may share it.
	Name string
	// Description is frontmatter "description".
	Description string
	// Frontmatter is the listed SKILL.md frontmatter, every field the author
	// wrote, decoded from JSON. It is shared: do not modify it.
	Frontmatter map[string]any
	// Files lists every file of the skill, SKILL.md first, as the server
	// listed them. It is nil for a dynamic skill.
	Files []File
	// Dynamic reports that the server publishes no manifest for the skill
	// (its content is generated), so nothing read from it can be verified.
	// Such a skill loads only with [WithDynamic].
	Dynamic bool

	// frontmatter is the listed frontmatter as the server sent it, compared
	// with the SKILL.md's; fingerprint identifies the entry as listed.
	frontmatter json.RawMessage
	fingerprint string
}

// Root returns the URI of the skill's directory: URI without "/SKILL.md".
func (s Skill) Root() string { return strings.TrimSuffix(s.URI, "/"+skillFile) }

// File returns the listed file at path, relative to the skill's directory
// ("references/FORMS.md"), or given as its full URI.
func (s Skill) File(path string) (File, bool) {
	for _, f := range s.Files {
		if f.Path == path || f.URI == path {
			return f, true
		}
	}
	return File{}, false
}

// A File is one file of a skill as its entry lists it.
type File struct {
	// URI is the file's resource URI.
	URI string
	// Path is the file's path relative to the skill's directory, such as
	// "SKILL.md" or "references/FORMS.md".
	Path string
	// Size is the file's length in bytes.
	Size int64
	// Digest is the SHA-256 digest of its bytes, as "sha256:" and 64
	// lowercase hexadecimal digits.
	Digest string
}
