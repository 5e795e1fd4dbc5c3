package skills

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Loaded skill is one whose SKILL.md was read and verified: the host is
// acting on it, under the entry it was loaded from. Its other files are read
// on demand with [Loaded.ReadFile], each verified in the same way, and only
// files that entry lists are read. A Loaded is safe for concurrent use.
type Loaded struct {
	// Skill is the entry the skill was loaded under.
	Skill Skill
	// Content is the SKILL.md, frontmatter included, as read and verified.
	Content []byte

	c *Client

	mu    sync.Mutex
	spent int64 // bytes read of a dynamic skill
}

// Body returns the SKILL.md after its frontmatter: the instructions.
func (l *Loaded) Body() string {
	_, body, _ := splitFrontmatter(l.Content)
	return string(body)
}

// ReadFile reads a file of the skill, named by its path relative to the
// skill's directory ("references/FORMS.md") or by its URI, and returns its
// content after checking its size and digest against the entry. A file the
// entry does not list is not read (a [VerifyError] with Field "listed"). A
// mismatch refuses the whole skill, as [Client.Load] describes: this and
// later reads fail, and the skill must be loaded again under a refreshed
// entry.
//
// For a dynamic skill (loaded [WithDynamic]) any path within the skill's
// directory is read, unverified, until [MaxTotalSize] bytes were read.
func (l *Loaded) ReadFile(ctx context.Context, path string) ([]byte, error) {
	s := l.Skill
	if err := l.c.refusal(s); err != nil {
		return nil, err
	}
	rel := strings.TrimPrefix(path, s.Root()+"/")
	if s.Dynamic {
		if !cleanPath(rel) || strings.Contains(rel, "://") {
			return nil, &VerifyError{Skill: s.Name, URI: s.URI, File: path, Field: "listed"}
		}
		return l.read(ctx, s.Root()+"/"+rel)
	}
	f, ok := s.File(rel)
	if !ok {
		return nil, &VerifyError{Skill: s.Name, URI: s.URI, File: path, Field: "listed"}
	}
	return l.read(ctx, f.URI)
}

// read reads the file at uri and verifies it against the entry, refusing the
// skill on a mismatch.
func (l *Loaded) read(ctx context.Context, uri string) ([]byte, error) {
	s, c := l.Skill, l.c
	res, err := c.src.ReadResource(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("skills: skill %q: resources/read %s: %w", s.Name, quote(uri), err)
	}
	c.cfg.logger.Debug("skills: read", "skill", s.Name, "uri", uri)
	fail := func(field, want, got string) error {
		return c.refuse(s, &VerifyError{Skill: s.Name, URI: s.URI, File: uri, Field: field, Want: want, Got: got})
	}
	data, ok := contents(res, uri)
	if !ok {
		return nil, fail("content", "one content for the file", "none")
	}
	if s.Dynamic {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.spent+int64(len(data)) > MaxTotalSize {
			return nil, fail("size", strconv.Itoa(MaxTotalSize-int(l.spent)), strconv.Itoa(len(data)))
		}
		l.spent += int64(len(data))
		return data, nil
	}
	f, _ := s.File(uri)
	if got := int64(len(data)); got != f.Size {
		return nil, fail("size", strconv.FormatInt(f.Size, 10), strconv.FormatInt(got, 10))
	}
	if got := digest(data); got != f.Digest {
		return nil, fail("digest", f.Digest, got)
	}
	return data, nil
}

// contents returns the bytes a resources/read result holds for uri: the
// content with that URI, or the only content there is.
func contents(res *mcp.ReadResourceResult, uri string) ([]byte, bool) {
	if res == nil {
		return nil, false
	}
	var pick *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && rc.URI == uri {
			if pick != nil {
				return nil, false
			}
			pick = rc
		}
	}
	if pick == nil && len(res.Contents) == 1 && res.Contents[0] != nil {
		pick = res.Contents[0]
	}
	if pick == nil {
		return nil, false
	}
	if pick.Blob != nil {
		return pick.Blob, true
	}
	return []byte(pick.Text), true
}
