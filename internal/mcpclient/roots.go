package mcpclient

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Root is a directory (or file) the host lets a server work in, as the
// server learns with roots/list (client/roots in the specification): a
// file:// URI and a name to show.
type Root struct {
	URI  string
	Name string
}

// RootOf returns the Root of a local path: its absolute file:// URI, named
// by its last element.
func RootOf(path string) (Root, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}

// checkRoots refuses a root whose URI is not a file:// URI, which the
// specification requires, or a URI given twice.
func checkRoots(roots []Root) error {
	for i, r := range roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" {
			return fmt.Errorf("root %q: not a file:// URI", r.URI)
		}
		if slices.ContainsFunc(roots[:i], func(o Root) bool { return o.URI == r.URI }) {
			return fmt.Errorf("root %q: given twice", r.URI)
		}
	}
	return nil
}

// WithRoots declares the roots capability (with listChanged) and answers
// the server's roots/list with roots (go-sdk lists them by URI). A server
// may take its client's roots as the whole of where it may work, in place
// of the directories it was started with (the reference filesystem server
// does): declare only roots the user named, never a default such as the
// working directory, which could widen a server's sandbox.
// [Provider.SetRoots]
// changes them later. With no roots, the capability is declared and the
// list is empty. A root whose URI is not a file:// URI is refused at
// Connect with a [ConfigError]. Without this option the provider claims
// no roots capability.
func WithRoots(roots ...Root) Option {
	return func(c *config) { c.roots = new(slices.Clone(roots)) }
}

// SetRoots replaces the roots the server is told of and, if they changed,
// notifies it (notifications/roots/list_changed), so that it asks for them
// again; a connection made later starts with them. It refuses roots
// [WithRoots] would refuse, and a provider made without WithRoots, whose
// server was told the host has no roots.
func (p *Provider) SetRoots(roots ...Root) error {
	if p.cfg.roots == nil {
		return &ConfigError{Server: p.name, Option: "roots", Err: errors.New("the provider was made without WithRoots")}
	}
	if err := checkRoots(roots); err != nil {
		return &ConfigError{Server: p.name, Option: "roots", Err: err}
	}
	p.roots.set(slices.Clone(roots), *p.cfg.roots)
	return nil
}

// Roots returns the roots the server is told of.
func (p *Provider) Roots() []Root {
	if p.cfg.roots == nil {
		return nil
	}
	return p.roots.get(*p.cfg.roots)
}

// rootSet is the provider's roots, which go-sdk's client of the live
// session serves.
type rootSet struct {
	mu     sync.Mutex
	given  bool // SetRoots was called: the option's roots no longer apply
	roots  []Root
	client *mcp.Client
}

func (r *rootSet) current(initial []Root) []Root {
	if !r.given {
		return initial
	}
	return r.roots
}

func (r *rootSet) get(initial []Root) []Root {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.current(initial))
}

// install gives a new session's client the roots; it has no session yet,
// so no server is notified.
func (r *rootSet) install(c *mcp.Client, initial []Root) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.client = c
	c.AddRoots(wireRoots(r.current(initial))...)
}

// set replaces the roots, telling the live session's client what changed:
// go-sdk notifies the server once for the roots removed and once for those
// added or renamed.
func (r *rootSet) set(roots, initial []Root) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.current(initial)
	r.roots, r.given = roots, true
	if r.client == nil {
		return
	}
	var gone []string
	for _, o := range old {
		if !slices.ContainsFunc(roots, func(n Root) bool { return n.URI == o.URI }) {
			gone = append(gone, o.URI)
		}
	}
	var changed []Root
	for _, n := range roots {
		if !slices.Contains(old, n) {
			changed = append(changed, n)
		}
	}
	r.client.RemoveRoots(gone...)
	r.client.AddRoots(wireRoots(changed)...)
}

func wireRoots(roots []Root) []*mcp.Root {
	out := make([]*mcp.Root, len(roots))
	for i, r := range roots {
		out[i] = &mcp.Root{URI: r.URI, Name: r.Name}
	}
	return out
}

// RootsOf is the roots of local directories: each its absolute file://
// URI, named by its last element.
func RootsOf(dirs []string) []Root {
	roots := make([]Root, 0, len(dirs))
	for _, d := range dirs {
		r, err := RootOf(d)
		if err != nil { // no working directory: the path as given, refused at Connect unless absolute
			r = Root{URI: "file://" + filepath.ToSlash(d), Name: filepath.Base(d)}
		}
		roots = append(roots, r)
	}
	return roots
}
