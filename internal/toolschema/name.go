package toolschema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// nameRule is one vendor's rule for tool names.
type nameRule struct {
	max int // in bytes; every allowed character is ASCII
	// extra lists the punctuation allowed besides ASCII letters and digits.
	extra string
	// firstLetter requires the first character to be a letter or '_'.
	firstLetter bool
}

// The rules, as each vendor documents them:
//
//   - OpenAI: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with
//     a maximum length of 64" (OpenAI API reference, function tool "name";
//     the API reports violations as ^[a-zA-Z0-9_-]{1,64}$).
//   - Anthropic: ^[a-zA-Z0-9_-]{1,128}$ (Anthropic Messages API, tools[].name,
//     as its validation errors state). Claude Desktop's MCP bridge has been
//     seen to enforce 64; a caller that also targets it can use OpenAI rules.
//   - Gemini: "Must start with a letter or an underscore. Must be a-z, A-Z,
//     0-9, or contain underscores, dots, colons and dashes, with a maximum
//     length of 64" (Gemini API FunctionDeclaration.name, google-genai SDKs).
//     Vertex AI documents 128 in some versions; 64 is the safe bound.
func ruleFor(v Vendor) nameRule {
	switch v {
	case Anthropic:
		return nameRule{max: 128, extra: "_-"}
	case Gemini:
		return nameRule{max: 64, extra: "_-.:", firstLetter: true}
	default:
		return nameRule{max: 64, extra: "_-"}
	}
}

func (r nameRule) allowed(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte(r.extra, c) >= 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

// A NameError says which of a vendor's naming rules a tool name breaks.
type NameError struct {
	Vendor Vendor
	Name   string
	// Rule is the broken rule, in words.
	Rule string
}

// Error names the vendor, the name and the broken rule.
func (e *NameError) Error() string {
	return fmt.Sprintf("schema: %s tool name %q: %s", e.Vendor, e.Name, e.Rule)
}

// CheckName reports whether name is a valid tool name for v, and if not, a
// *NameError naming the first rule it breaks.
func CheckName(v Vendor, name string) error {
	if err := v.check(); err != nil {
		return err
	}
	r := ruleFor(v)
	fail := func(format string, args ...any) error {
		return &NameError{Vendor: v, Name: name, Rule: fmt.Sprintf(format, args...)}
	}
	if name == "" {
		return fail("empty")
	}
	if len(name) > r.max {
		return fail("%d bytes long, more than %d", len(name), r.max)
	}
	if r.firstLetter && !isLetter(name[0]) {
		return fail("must start with a letter or '_', not %q", name[:1])
	}
	for i, c := range name {
		if c >= utf8.RuneSelf {
			return fail("character %q (%U) at byte %d is not allowed (want ASCII letters, digits or one of %q)", c, c, i, r.extra)
		}
		if !r.allowed(byte(c)) {
			return fail("character %q at byte %d is not allowed (want ASCII letters, digits or one of %q)", c, i, r.extra)
		}
	}
	return nil
}

// hashLen is the number of hex digits in a disambiguating suffix: 24 bits
// keeps names readable while making an accidental clash between two tools of
// one session very unlikely; a clash that does happen is resolved by a longer
// suffix.
const hashLen = 6

type pair struct{ server, tool string }

// A Namer gives each (server, tool) pair a name valid for one vendor, and
// maps a name the model uses back to its pair.
//
// The name is the wanted name when that is valid and free. Otherwise it is
// rewritten readably: every disallowed character becomes '_', a Gemini name
// not starting with a letter or '_' gets a '_' in front, and a name that is
// too long, or that is already taken by another pair, is cut and given the
// suffix "_" plus hex digits of the SHA-256 of the pair (server, tool). The
// suffix depends only on the pair, never on a counter, so a tool keeps its
// name when others come and go, unless two pairs compete for the same plain
// name: then the pair added first keeps it. Add never fails for a name
// clash.
//
// A Namer is safe for concurrent use.
type Namer struct {
	vendor Vendor
	rule   nameRule

	mu     sync.Mutex
	byPair map[pair]string
	byName map[string]pair
}

// NewNamer returns an empty Namer for v. An unknown vendor gets OpenAI's
// rules, the strictest on length and characters after Gemini's first letter.
func NewNamer(v Vendor) *Namer {
	return &Namer{
		vendor: v,
		rule:   ruleFor(v),
		byPair: map[pair]string{},
		byName: map[string]pair{},
	}
}

// Add assigns the (server, tool) pair a final name, starting from wanted (the
// namespaced name asked for, such as "kb_search", or just "search"; empty
// means the tool name). Adding a pair again returns the name it already has,
// whatever wanted is. The error is reserved for the impossible: no free name
// even with a full-length hash.
func (n *Namer) Add(server, toolName, wanted string) (string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := pair{server, toolName}
	if name, ok := n.byPair[p]; ok {
		return name, nil
	}
	if wanted == "" {
		wanted = toolName
	}
	base := n.rewrite(wanted)
	name := base
	if len(base) > n.rule.max || n.taken(base) {
		sum := sha256.Sum256([]byte(server + "\x00" + toolName))
		digest := hex.EncodeToString(sum[:])
		name = ""
		for l := hashLen; l <= len(digest); l += 2 {
			suffix := "_" + digest[:l]
			cut := min(len(base), n.rule.max-len(suffix))
			if cut < 0 {
				break
			}
			if c := base[:cut] + suffix; !n.taken(c) {
				name = c
				break
			}
		}
		if name == "" {
			return "", fmt.Errorf("schema: no free %s name for server %q tool %q", n.vendor, server, toolName)
		}
	}
	n.byPair[p] = name
	n.byName[name] = p
	return name, nil
}

func (n *Namer) taken(name string) bool { _, ok := n.byName[name]; return ok }

// Rewrite returns s with every character the vendor does not allow in a
// name replaced as [Namer.Add] does, but not cut to the vendor's length: two
// names that rewrite alike would be told apart only by a hash suffix, so a
// host that must not let one tool take another's name compares them so.
func (n *Namer) Rewrite(s string) string { return n.rewrite(s) }

// rewrite makes s valid for the vendor except for its length, keeping it
// readable and keeping names apart. Letters with diacritics lose them
// (lire-élevé becomes lire-eleve); any other character the vendor does not
// allow becomes '_', except that a character outside ASCII that has no
// such reading (日本語, Ελ, кот) is left out and the name gets the suffix "_"
// plus six hex digits of the SHA-256 of s, so that two names in a script the
// vendor cannot spell stay two names. A name of nothing but such characters
// is "tool" and its suffix.
func (n *Namer) rewrite(s string) string {
	var b strings.Builder
	lost := false
	for _, r := range norm.NFD.String(s) {
		switch {
		case r < 0x80 && n.rule.allowed(byte(r)):
			b.WriteRune(r)
		case r < 0x80:
			b.WriteByte('_')
		case unicode.Is(unicode.Mn, r):
			// A diacritic, decomposed from its letter: dropped.
		default:
			lost = true
		}
	}
	out := b.String()
	if lost {
		sum := sha256.Sum256([]byte(s))
		out = strings.TrimRight(out, "_")
		if strings.Trim(out, "_") == "" {
			out = "tool"
		}
		out += "_" + hex.EncodeToString(sum[:])[:hashLen]
	}
	if out == "" || n.rule.firstLetter && !isLetter(out[0]) {
		out = "_" + out
	}
	return out
}

// Lookup returns the pair a final name was given to. (The alias
// mcp__<server>__<tool> is read by whoever holds the pairs, with
// names.Resolve: the Namer keeps names only.)
func (n *Namer) Lookup(name string) (server, toolName string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	p, ok := n.byName[name]
	return p.server, p.tool, ok
}

// Name returns the final name already given to a pair.
func (n *Namer) Name(server, toolName string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	name, ok := n.byPair[pair{server, toolName}]
	return name, ok
}
