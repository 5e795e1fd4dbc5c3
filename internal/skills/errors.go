package skills

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotDeclared is returned when the server did not declare the Skills
// extension: a host must not send skills/list or skills/get then.
var ErrNotDeclared = errors.New("server does not declare the skills extension")

// ErrUnknownSkill is returned by [Client.Load] for a name no listed skill
// has, or a URI the server does not serve as a skill.
var ErrUnknownSkill = errors.New("no such skill")

// ErrDynamic is returned by [Client.Load] for a skill whose content is
// generated ([Skill.Dynamic]), which cannot be verified, unless the Client
// was built [WithDynamic].
var ErrDynamic = errors.New("dynamic skill: its content cannot be verified")

// A VerifyError says that what the server served for a file is not what the
// skill's entry describes, so the content was not used. The skill is refused:
// [Client.Load] and [Loaded.ReadFile] answer with the same error until the
// server lists a different entry for it.
//
// Field names what differed:
//
//   - "size": the byte length (Want and Got are decimal byte counts);
//   - "digest": the SHA-256 digest (Want and Got are "sha256:..." digests);
//   - "frontmatter.<key>": a field of the SKILL.md frontmatter differs from
//     the listed one, or is missing from one side (Want is the listed value,
//     Got the file's, both as JSON and cut short);
//   - "frontmatter": the SKILL.md has no frontmatter the host can parse;
//   - "content": the read returned no content for the file;
//   - "listed": the file is not in the entry, so it was not read (the skill
//     is not refused for this: nothing unverified was read).
//
// The message names skill, file and field; for a frontmatter field it leaves
// out the values, which are the server's text.
type VerifyError struct {
	// Skill is the skill's name; URI its SKILL.md URI.
	Skill, URI string
	// File is the URI of the file that failed.
	File string
	// Field is what differed, as listed above.
	Field string
	// Want is what the entry says; Got what was read.
	Want, Got string
}

func (e *VerifyError) Error() string {
	var what string
	switch {
	case e.Field == "size":
		what = fmt.Sprintf("size mismatch: listed %s bytes, read %s", e.Want, e.Got)
	case e.Field == "digest":
		what = fmt.Sprintf("digest mismatch: listed %s, read %s", e.Want, e.Got)
	case e.Field == "listed":
		what = "not listed in the skill's entry, not read"
	case e.Field == "content":
		what = "the server returned no content for it"
	case e.Field == "frontmatter":
		what = "no valid YAML frontmatter: " + e.Got
	case strings.HasPrefix(e.Field, "frontmatter."):
		what = fmt.Sprintf("frontmatter field %q differs from the listed frontmatter", strings.TrimPrefix(e.Field, "frontmatter."))
	default:
		what = e.Field + " mismatch"
	}
	return fmt.Sprintf("skills: skill %q (%s) refused: %s: %s", e.Skill, uriText(e.URI), uriText(e.File), what)
}

// An EntryError says a skill's entry breaks the extension's rules, so the
// skill is never loaded. [Client.List] leaves such entries out; [Client.Load]
// and [Client.Get] return this error for them.
type EntryError struct {
	// URI is the entry's SKILL.md URI, or "skills[i]" for an entry without
	// one.
	URI string
	// Name is the entry's frontmatter name, if it has one.
	Name string
	// Reason says what is wrong.
	Reason string
}

func (e *EntryError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("skills: skill %q (%s) refused: invalid entry: %s", e.Name, uriText(e.URI), e.Reason)
	}
	return fmt.Sprintf("skills: skill %s refused: invalid entry: %s", uriText(e.URI), e.Reason)
}

// An AmbiguousError says a name given to [Client.Load] is the name of
// several listed skills; load one by its URI instead.
type AmbiguousError struct {
	// Name is the name asked for.
	Name string
	// URIs are the SKILL.md URIs of the skills that bear it.
	URIs []string
}

func (e *AmbiguousError) Error() string {
	uris := make([]string, len(e.URIs))
	for i, u := range e.URIs {
		uris[i] = uriText(u)
	}
	return fmt.Sprintf("skills: %d skills are named %q (%s): load one by its URI", len(e.URIs), e.Name, strings.Join(uris, ", "))
}

// uriText is a URI from the server as a message shows it: as it is when it
// is printable, else quoted.
func uriText(uri string) string {
	if printable(uri) {
		return uri
	}
	return quote(uri)
}

// quote quotes s, a value from the server, cut to a length fit for a message.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
