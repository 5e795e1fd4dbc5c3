package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// skillFile is the name of the file every skill has at its root.
const skillFile = "SKILL.md"

// The wire form of skills/get results and of a listing's entries.
type (
	getResult struct {
		Skill json.RawMessage `json:"skill"`
	}
	wireEntry struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	wireFile struct {
		URI    string      `json:"uri"`
		Digest string      `json:"digest"`
		Size   json.Number `json:"size"`
	}
)

var (
	digestForm = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	// nameForm is the Agent Skills naming rule: 1-64 lowercase letters,
	// digits and hyphens, no hyphen first, last or doubled.
	nameForm = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
)

// parseEntry decodes and checks one skill entry. where names the entry in an
// error when it has no URI. A failed check is an *EntryError.
func parseEntry(raw json.RawMessage, where string) (Skill, error) {
	fail := func(uri, name, format string, args ...any) (Skill, error) {
		if uri == "" {
			uri = where
		}
		return Skill{}, &EntryError{URI: uri, Name: name, Reason: fmt.Sprintf(format, args...)}
	}
	var w wireEntry
	if err := json.Unmarshal(raw, &w); err != nil {
		return fail("", "", "not a skill object: %v", err)
	}
	var fm map[string]any
	if err := json.Unmarshal(w.Frontmatter, &fm); err != nil || fm == nil {
		return fail(w.URI, "", "frontmatter is missing or not an object")
	}
	name, _ := fm["name"].(string)
	desc, _ := fm["description"].(string)
	if w.URI == "" {
		return fail("", name, "no uri")
	}
	if name == "" || desc == "" {
		return fail(w.URI, name, "frontmatter lacks a name or a description")
	}
	if !printable(w.URI) {
		return fail(w.URI, name, "the uri holds white space or a character a reader cannot see")
	}
	segs, ok := skillPath(w.URI)
	if !ok {
		return fail(w.URI, name, "uri is not <scheme>://<skill-path>/SKILL.md")
	}
	if last := segs[len(segs)-1]; last != name {
		return fail(w.URI, name, "the uri's last path segment %s is not the skill's name", quote(last))
	}
	if !nameForm.MatchString(name) {
		return fail(w.URI, name, "the name breaks the Agent Skills naming rules")
	}
	s := Skill{
		URI:         w.URI,
		Name:        name,
		Description: desc,
		Frontmatter: fm,
		frontmatter: w.Frontmatter,
	}
	res := bytes.TrimSpace(w.Resources)
	if string(res) == `"dynamic"` {
		s.Dynamic = true
		s.seal()
		return s, nil
	}
	var files []wireFile
	if len(res) == 0 || res[0] != '[' || json.Unmarshal(res, &files) != nil {
		return fail(w.URI, name, `resources is neither a list of files nor "dynamic"`)
	}
	if len(files) > MaxFiles {
		return fail(w.URI, name, "%d files, more than the %d a host must accept", len(files), MaxFiles)
	}
	root := s.Root() + "/"
	seen := make(map[string]bool, len(files))
	var total int64
	for _, f := range files {
		if seen[f.URI] {
			return fail(w.URI, name, "file %s listed twice", quote(f.URI))
		}
		seen[f.URI] = true
		if !printable(f.URI) {
			return fail(w.URI, name, "file %s: the uri holds white space or a character a reader cannot see", quote(f.URI))
		}
		rel, ok := strings.CutPrefix(f.URI, root)
		if !ok || !cleanPath(rel) {
			return fail(w.URI, name, "file %s is not within the skill's directory", quote(f.URI))
		}
		if !digestForm.MatchString(f.Digest) {
			return fail(w.URI, name, "file %s: digest %s is not sha256:<64 lowercase hex digits>", quote(f.URI), quote(f.Digest))
		}
		size, err := strconv.ParseInt(string(f.Size), 10, 64)
		if err != nil || size < 0 {
			return fail(w.URI, name, "file %s: size %s is not a byte count", quote(f.URI), quote(string(f.Size)))
		}
		if total += size; total > MaxTotalSize {
			return fail(w.URI, name, "files total more than the %d bytes a host must accept", MaxTotalSize)
		}
		file := File{URI: f.URI, Path: rel, Size: size, Digest: f.Digest}
		if f.URI == w.URI {
			s.Files = append([]File{file}, s.Files...)
		} else {
			s.Files = append(s.Files, file)
		}
	}
	if !seen[w.URI] {
		return fail(w.URI, name, "resources does not list the SKILL.md itself")
	}
	s.seal()
	return s, nil
}

// printable reports whether uri holds no white space (a URI has none) and
// nothing a reader cannot see: a skill's URI names it to a person and to a
// model, on one line.
func printable(uri string) bool {
	return !strings.ContainsFunc(uri, func(r rune) bool { return unicode.IsSpace(r) || untrusted.Invisible(r) })
}

// skillPath splits uri, of the form <scheme>://<skill-path>/SKILL.md, into
// the segments of its skill path.
func skillPath(uri string) ([]string, bool) {
	_, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return nil, false
	}
	dir, ok := strings.CutSuffix(rest, "/"+skillFile)
	if !ok || dir == "" || !cleanPath(dir) {
		return nil, false
	}
	return strings.Split(dir, "/"), true
}

// cleanPath reports whether p is a relative path of non-empty segments with
// no "." or "..", nor a query or fragment.
func cleanPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "?#\\") {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// digest returns the SHA-256 digest of data in the extension's form.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// seal sets the skill's fingerprint, which identifies the entry by its
// content (not by how the server spelled it), so that a refusal holds for as
// long as the server lists the same entry.
func (s *Skill) seal() {
	data, _ := json.Marshal(struct {
		URI         string
		Frontmatter map[string]any
		Files       []File
		Dynamic     bool
	}{s.URI, s.Frontmatter, s.Files, s.Dynamic})
	s.fingerprint = digest(data)
}
