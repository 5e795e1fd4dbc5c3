package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpbridge/mcpbridge/internal/telemetry"
)

// A Client is the host side of the Skills extension for one server: it
// lists the server's skills, loads one on demand and reads its files,
// verifying each read against the skill's entry. A Client is safe for
// concurrent use.
type Client struct {
	src Source
	cfg config

	mu sync.Mutex
	// listed is the last listing, in the server's order; nil until a
	// listing was made.
	listed []Skill
	// known holds every valid entry seen, by URI, from listings and
	// skills/get; invalid holds the entries that broke the rules.
	known   map[string]Skill
	invalid map[string]*EntryError
	// refused holds, by URI, the skills that failed verification and the
	// entry they failed under.
	refused map[string]refusal

	offers offers // what Offer offered and loaded
}

type refusal struct {
	fingerprint string
	err         error
}

type config struct {
	logger  *slog.Logger
	dynamic bool
}

// An Option configures a Client.
type Option func(*config)

// WithLogger has the Client log refusals (at warn level) and reads (at debug
// level) to l. Nothing the server sent beyond URIs, names and digests is
// logged. Nil, the default, is slog.Default() told only the refusals.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithDynamic lets the Client load dynamic skills ([Skill.Dynamic]), which
// carry no digests: their SKILL.md frontmatter is still compared with the
// listed one, their files are read only from within the skill's directory,
// and reading stops at [MaxTotalSize] bytes per loaded skill, but nothing
// proves the content is what the server meant to publish.
func WithDynamic() Option { return func(c *config) { c.dynamic = true } }

// New returns a Client for the skills of src, a connected server.
func New(src Source, opts ...Option) *Client {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	cfg.logger = telemetry.Logger(cfg.logger)
	return &Client{
		src:     src,
		cfg:     cfg,
		known:   map[string]Skill{},
		invalid: map[string]*EntryError{},
		refused: map[string]refusal{},
	}
}

func (c *Client) declared() error {
	if !Declared(c.src.ServerExtensions()) {
		return fmt.Errorf("skills: %w", ErrNotDeclared)
	}
	return nil
}

// List returns the skills the server lists, following every page of
// skills/list, in the server's order. It reads no file of any skill.
//
// Entries that break the extension's rules are left out (and logged); loading
// one returns its [EntryError]. A listing may be partial: a skill it does not
// name may still load by its URI. The pages are followed as every listing's
// are ([Source].ListRaw), within the source's bounds: a listing that does
// not end (a repeated cursor, too many pages) or holds too much fails, and
// List returns the skills of the pages it read with the error.
func (c *Client) List(ctx context.Context) ([]Skill, error) {
	if err := c.declared(); err != nil {
		return nil, err
	}
	var (
		skills  []Skill
		invalid []*EntryError
		n       int
	)
	err := c.src.ListRaw(ctx, "skills/list", "skills", func(raw json.RawMessage) bool {
		s, err := parseEntry(raw, fmt.Sprintf("skills[%d]", n))
		n++
		if err != nil {
			invalid = append(invalid, err.(*EntryError))
			return true
		}
		skills = append(skills, s)
		return true
	})
	if err != nil && n == 0 {
		return nil, fmt.Errorf("skills: %w", err)
	}
	if err != nil {
		err = fmt.Errorf("skills: %w", err)
	}

	c.mu.Lock()
	c.listed = skills
	for _, s := range skills {
		c.known[s.URI] = s
		delete(c.invalid, s.URI)
	}
	for _, e := range invalid {
		c.invalid[e.URI] = e
		delete(c.known, e.URI)
	}
	c.mu.Unlock()
	for _, e := range invalid {
		c.cfg.logger.Warn("skills: invalid entry left out", "uri", e.URI, "reason", e.Reason)
	}
	return skills, err
}

// hasListing reports whether a listing was made, whole or in part.
func (c *Client) hasListing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listed != nil
}

// Get asks the server for the entry of the skill whose SKILL.md is at uri
// (skills/get), whether or not a listing named it, and holds it for
// [Client.Load]. It reads no file. A uri the server does not serve as a skill
// is [ErrUnknownSkill], wrapping the server's answer.
func (c *Client) Get(ctx context.Context, uri string) (Skill, error) {
	if err := c.declared(); err != nil {
		return Skill{}, err
	}
	raw, err := c.src.Request(ctx, "skills/get", map[string]any{"uri": uri})
	if err != nil {
		if invalidParams(err) {
			return Skill{}, fmt.Errorf("skills: skills/get %s: %w: %w", quote(uri), ErrUnknownSkill, err)
		}
		return Skill{}, fmt.Errorf("skills: skills/get %s: %w", quote(uri), err)
	}
	var res getResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Skill) == 0 {
		return Skill{}, fmt.Errorf("skills: skills/get %s: malformed result", quote(uri))
	}
	s, err := parseEntry(res.Skill, uri)
	if err == nil && s.URI != uri {
		err = &EntryError{URI: uri, Name: s.Name, Reason: fmt.Sprintf("skills/get answered for %s", quote(s.URI))}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		e := err.(*EntryError)
		e.URI = uri
		c.invalid[uri] = e
		delete(c.known, uri)
		return Skill{}, err
	}
	delete(c.invalid, uri)
	c.known[uri] = s
	return s, nil
}

// Load loads a skill: it reads the skill's SKILL.md, checks its size and
// digest against the skill's entry, parses its YAML frontmatter and compares
// it field by field with the listed frontmatter. Any mismatch refuses the
// skill with a [VerifyError], and it stays refused (Load answers with the
// same error without reading again) until the server lists a different
// entry for it.
//
// id is a skill's URI or its name. A name is looked up in the last listing
// (made now if there is none) and must be unique there ([AmbiguousError]).
// A URI no listing named is asked for with skills/get ([Client.Get]).
// Nothing but the SKILL.md is read; a supporting file is read when
// [Loaded.ReadFile] asks for it.
func (c *Client) Load(ctx context.Context, id string) (*Loaded, error) {
	s, err := c.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := c.refusal(s); err != nil {
		return nil, err
	}
	if s.Dynamic && !c.cfg.dynamic {
		return nil, fmt.Errorf("skills: skill %q (%s): %w", s.Name, s.URI, ErrDynamic)
	}
	l := &Loaded{Skill: s, c: c}
	content, err := l.read(ctx, s.URI)
	if err != nil {
		return nil, err
	}
	if err := c.checkFrontmatter(s, content); err != nil {
		return nil, c.refuse(s, err)
	}
	l.Content = content
	c.cfg.logger.Debug("skills: loaded", "skill", s.Name, "uri", s.URI)
	return l, nil
}

// resolve finds the entry id names.
func (c *Client) resolve(ctx context.Context, id string) (Skill, error) {
	c.mu.Lock()
	s, ok := c.known[id]
	bad := c.invalid[id]
	listed := c.listed != nil
	c.mu.Unlock()
	switch {
	case ok:
		return s, nil
	case bad != nil:
		return Skill{}, bad
	case strings.Contains(id, "://"):
		return c.Get(ctx, id)
	}
	if !listed {
		// A listing that failed midway is searched as far as it came.
		if _, err := c.List(ctx); err != nil && !c.hasListing() {
			return Skill{}, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var found []Skill
	for _, s := range c.listed {
		if s.Name == id {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return c.known[found[0].URI], nil
	case 0:
		for _, e := range c.invalid {
			if e.Name == id {
				return Skill{}, e
			}
		}
		return Skill{}, fmt.Errorf("skills: skill %q: %w", id, ErrUnknownSkill)
	}
	e := &AmbiguousError{Name: id}
	for _, s := range found {
		e.URIs = append(e.URIs, s.URI)
	}
	return Skill{}, e
}

// refusal returns the error s was refused with, if it was refused under the
// same entry.
func (c *Client) refusal(s Skill) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.refused[s.URI]
	if !ok {
		return nil
	}
	if r.fingerprint != s.fingerprint {
		delete(c.refused, s.URI) // a different entry: judge it afresh
		return nil
	}
	return r.err
}

// refuse records that s failed verification with err, and returns err.
func (c *Client) refuse(s Skill, err error) error {
	c.mu.Lock()
	c.refused[s.URI] = refusal{s.fingerprint, err}
	c.mu.Unlock()
	c.cfg.logger.Warn("skills: skill refused", "skill", s.Name, "uri", s.URI, "error", err)
	return err
}

// checkFrontmatter compares the frontmatter of content, s's SKILL.md, with
// s's listed frontmatter.
func (c *Client) checkFrontmatter(s Skill, content []byte) error {
	fail := func(field, want, got string) error {
		return &VerifyError{Skill: s.Name, URI: s.URI, File: s.URI, Field: field, Want: want, Got: got}
	}
	front, _, ok := splitFrontmatter(content)
	if !ok {
		return fail("frontmatter", "a --- delimited YAML block", "none at the start of the file")
	}
	file, err := parseFrontmatter(front)
	if err != nil {
		return fail("frontmatter", "YAML", err.Error())
	}
	var listed map[string]any
	if err := json.Unmarshal(s.frontmatter, &listed); err != nil {
		return fail("frontmatter", "a JSON object", "the listing's frontmatter did not decode")
	}
	if field, want, got := compareFrontmatter(listed, file); field != "" {
		return fail("frontmatter."+field, want, got)
	}
	return nil
}

// invalidParams reports whether err is the server's JSON-RPC answer -32602
// (Invalid params), which skills/get gives for a URI that is not a skill.
func invalidParams(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams
}
