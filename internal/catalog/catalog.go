package catalog

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/modelio"
	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// A server is one enabled server of a Toolset and its part of the catalog.
type server struct {
	cfg  config.Server
	t    *Toolset
	pub  *mcptool.Provider   // as toolset hands it out
	p    *mcpclient.Provider // pub's core
	call tool.Handler        // the provider's relay: the catalog gates and checks

	syncMu sync.Mutex // held while the catalog takes in a listing

	// Guarded by t.mu.
	state   mcptool.State
	err     error
	out     bool // left out at Start
	listed  bool // the first listing has been taken in
	dirty   bool // the provider re-listed since
	entries []*toolEntry
	diags   []Quarantine
	pins    map[string]pin
	refused map[string]string     // tool name → the refused definition's hash
	built   map[string]*toolEntry // tool name → its last entry, by hash
}

func (s *server) status() ServerStatus {
	return ServerStatus{Name: s.cfg.Name, State: s.state, Err: s.err, Tools: len(s.entries)}
}

// A pin is a tool's definition as the host accepted it.
type pin struct {
	hash string
	def  tool.Definition
}

// pinHash is the SHA-256 of what a tool tells a model and a host: its name,
// title, description, schemas and annotations.
func pinHash(d tool.Definition) string {
	data, _ := json.Marshal(struct {
		Name, Title, Description  string
		InputSchema, OutputSchema json.RawMessage
		Annotations               *tool.Annotations
	}{d.Name, d.Title, d.Description, nonEmpty(d.InputSchema), nonEmpty(d.OutputSchema), d.Annotations})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func nonEmpty(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	return m
}

// A toolEntry is one tool of the catalog, or one left out of it (diag set).
type toolEntry struct {
	server *server
	tool   string // the server's name for it
	hash   string
	def    tool.Definition // the final name and the lowered schema
	input  json.RawMessage // the tool's own input schema
	diag   *Quarantine     // why the tool is out, if it is

	once      sync.Once
	validator *toolschema.Validator
}

// prepare readies args, the arguments object (nil or empty for none), for
// the server: repaired for the tool's own input schema and checked
// against it (see [Snapshot.Call]). The schema is compiled on first use and
// decoded only then, not on every call. A schema the validator cannot
// compile is logged once, and the arguments then go unchecked to the server,
// which judges them itself.
func (e *toolEntry) prepare(name string, args json.RawMessage) (json.RawMessage, error) {
	e.once.Do(func() {
		v, err := toolschema.Compile(e.input)
		if err != nil {
			e.server.t.log.Warn("arguments not checked locally: the input schema does not compile",
				"server", e.server.cfg.Name, "tool", e.tool, "err", err)
			return
		}
		e.validator = v
	})
	if e.validator == nil {
		return e.repair(name, args)
	}
	args, err := e.validator.Prepare(args, e.def.Strict)
	var ve *toolschema.ValidationError
	if errors.As(err, &ve) {
		return nil, &tool.RefusedError{Name: name, Message: ve.Message}
	}
	if err != nil {
		return nil, &tool.RefusedError{Name: name, Message: err.Error()}
	}
	return args, nil
}

// repair repairs args without checking them, for a schema that does not
// compile. It is the slow way, taken only for such rare schemas.
func (e *toolEntry) repair(name string, args json.RawMessage) (json.RawMessage, error) {
	args = modelio.Args(args) // only for none at all: the model's were unwrapped where they left it
	var probe map[string]json.RawMessage
	if json.Unmarshal(args, &probe) != nil || probe == nil {
		return nil, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
	}
	var err error
	if args, err = toolschema.DecodeStringified(e.input, args); err != nil {
		return nil, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
	}
	if e.def.Strict {
		if args, err = toolschema.DropNullOptionals(e.input, args); err != nil {
			return nil, &tool.RefusedError{Name: name, Message: "the arguments must be a JSON object"}
		}
	}
	return args, nil
}

// A collisionError says two servers offer a tool under one namespaced name.
type collisionError struct {
	name          string
	first, second pair
}

func (e *collisionError) Error() string {
	return fmt.Sprintf("servers %q and %q both offer a tool named %q (their tools %q and %q): give one of them a \"prefix\", or keep the default namespace",
		e.first.server, e.second.server, e.name, e.first.tool, e.second.tool)
}

// key is the name a tool of s claims in the catalog: its namespaced name
// as the vendor's rewrite makes it. Two tools claiming one key would be told
// apart only by a hash suffix, so that one could take the other's name
// (get.data becomes get_data for OpenAI): the catalog compares keys.
func (t *Toolset) key(s *server, toolName string) string {
	return t.namer.Rewrite(wanted(s, toolName))
}

// wanted is the name a tool of s asks for: its own, namespaced.
func wanted(s *server, toolName string) string {
	if prefix := s.cfg.ToolPrefix(); prefix != "" {
		return prefix + "_" + toolName
	}
	return toolName
}

// collision returns the collision a tool of s would be in, t.mu held, or
// nil. Only another server's tool collides: two tools of one server that
// claim one key are told apart by the namer (see apply), and neither can
// take a name from another server.
func (t *Toolset) collision(s *server, toolName string) *collisionError {
	key, me := t.key(s, toolName), pair{s.cfg.Name, toolName}
	if o, ok := t.owners[key]; ok && o.server != me.server {
		return &collisionError{name: key, first: o, second: me}
	}
	return nil
}

// aliasOf reports the server whose alias mcp__<server>__<tool> name reads
// as, if it is one of the set's: a tool by that name would shadow the
// alias.
func (t *Toolset) aliasOf(name string) (string, bool) {
	o, ok, ambiguous := names.Resolve(name, func(o tool.Origin) bool {
		for _, s := range t.servers {
			if s.cfg.Name == o.Server {
				return true
			}
		}
		return false
	})
	return o.Server, ok || ambiguous
}

// build makes the entry of a listed tool, t.mu held: its namespaced name,
// checked against the other servers', its lowered schema and its final
// name. An entry with a diag is out of the catalog.
func (t *Toolset) build(s *server, d tool.Definition, hash string) (*toolEntry, error) {
	if e := s.built[d.Name]; e != nil && e.hash == hash {
		return e, nil
	}
	if c := t.collision(s, d.Name); c != nil {
		return nil, c
	}
	key := t.key(s, d.Name)
	t.owners[key] = pair{s.cfg.Name, d.Name}
	e := &toolEntry{server: s, tool: d.Name, hash: hash, input: d.InputSchema}
	quarantine := func(diag Quarantine) {
		e.diag = &diag
		t.log.Warn("tool quarantined", "diagnostic", diag.String())
	}
	if other, ok := t.aliasOf(key); ok {
		quarantine(Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: fmt.Sprintf("its name reads as an alias of a tool of server %q (mcp__<server>__<tool>), which it would shadow", other)})
	} else if low, err := schema.Lower(t.opts.vendor, d.InputSchema); err != nil {
		diag := Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: err.Error()}
		var le *schema.LowerError
		if errors.As(err, &le) {
			diag.Pointer = le.Pointer
			diag.Message = fmt.Sprintf("input schema cannot be lowered for %s: %s", le.Vendor, le.Message)
			if le.Err != nil { // unusable whatever the vendor
				diag.Message = "input schema cannot be used: " + le.Message
			}
		}
		quarantine(diag)
	} else if diag := outputQuarantine(s.cfg.Name, d); diag != nil {
		quarantine(*diag)
	} else if final, err := t.namer.Add(s.cfg.Name, d.Name, key); err != nil {
		quarantine(Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: err.Error()})
	} else {
		e.def = d
		e.def.Name = final
		e.def.Origin = tool.Origin{Server: s.cfg.Name, Tool: d.Name}
		e.def.InputSchema = low.Schema
		e.def.Strict = low.Strict
	}
	s.built[d.Name] = e
	return e, nil
}

// outputQuarantine says why d's output schema cannot be used, or returns
// nil (see [schema.LintOutput]).
func outputQuarantine(server string, d tool.Definition) *Quarantine {
	ds := schema.LintOutput(d.OutputSchema)
	if len(ds) == 0 {
		return nil
	}
	return &Quarantine{Server: server, Tool: d.Name, Pointer: "/outputSchema" + ds[0].Pointer, Message: "output schema cannot be used: " + ds[0].Message}
}

// buildAll takes in the first listing of every server that started:
// required servers first, then optional ones, each group in config order,
// so that a contested name goes to a required server, else to the earlier
// one. An optional server with a name another already has is left out,
// whole, and says why in its status; a required one fails Start.
func (t *Toolset) buildAll() error {
	order := slices.Clone(t.servers)
	slices.SortStableFunc(order, func(a, b *server) int {
		switch {
		case a.cfg.Required == b.cfg.Required:
			return 0
		case a.cfg.Required:
			return -1
		}
		return 1
	})
	for _, s := range order {
		if t.isOut(s) {
			continue
		}
		defs := s.p.Tools()
		if c := t.firstCollision(s, defs); c != nil {
			if s.cfg.Required {
				return c
			}
			t.log.Warn("server left out: a tool name is another server's", "server", s.cfg.Name, "err", c)
			t.fail(s, fmt.Errorf("left out: %w", c))
			continue
		}
		s.syncMu.Lock()
		err := t.apply(s, defs)
		s.syncMu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// firstCollision returns the first collision a listing of s would be in.
func (t *Toolset) firstCollision(s *server, defs []tool.Definition) *collisionError {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, d := range defs {
		if c := t.collision(s, d.Name); c != nil {
			return c
		}
	}
	return nil
}

// apply makes defs, a listing of s, its part of the catalog, s.syncMu held.
// A tool not pinned yet is pinned; one that changed since is let in, asked
// about (OnToolChanged, t.mu not held) or kept out as refused. It returns
// the first name collision with another server, whose tool is also kept
// out.
func (t *Toolset) apply(s *server, defs []tool.Definition) error {
	type change struct {
		old, new tool.Definition
		hash     string
	}
	var changes []change
	var first error
	t.mu.Lock()
	initial := !s.listed
	s.listed = true
	before := len(s.entries)
	hashes := make([]string, len(defs))
	outs := make([]*Quarantine, len(defs)) // why each tool is out, if it is
	var build []int                        // the tools to build, by index
	for i, d := range defs {
		h := pinHash(d)
		p, pinned := s.pins[d.Name]
		switch {
		case !pinned:
			s.pins[d.Name] = pin{hash: h, def: d}
			if !initial {
				t.log.Info("new tool", "server", s.cfg.Name, "tool", d.Name)
			}
		case p.hash == h:
			delete(s.refused, d.Name)
		case s.refused[d.Name] == h:
			outs[i] = &Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: "changed since it was pinned, and the change was refused"}
			continue
		case t.opts.onToolChanged != nil:
			t.log.Warn("tool changed since it was pinned; asking the host", "server", s.cfg.Name, "tool", d.Name)
			changes = append(changes, change{p.def, d, h})
			outs[i] = &Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: "changed since it was pinned; the host has not accepted the change yet"}
			continue
		default:
			t.log.Warn("tool changed since it was pinned; accepted", "server", s.cfg.Name, "tool", d.Name)
			s.pins[d.Name] = pin{hash: h, def: d}
		}
		hashes[i] = h
		build = append(build, i)
	}
	// Of two tools the vendor's rewrite makes alike (a.b and a/b), one has
	// the plain name (a_b) and the other the namer's hash suffix, whatever
	// the order the server lists them in: built first are the tools whose
	// names need no rewrite, so that none loses its own name to a twin,
	// then the others, each group in the byte order of the names.
	rewritten := make([]int, len(defs))
	for _, i := range build {
		if t.key(s, defs[i].Name) != wanted(s, defs[i].Name) {
			rewritten[i] = 1
		}
	}
	slices.SortStableFunc(build, func(i, j int) int {
		return cmp.Or(rewritten[i]-rewritten[j], strings.Compare(defs[i].Name, defs[j].Name))
	})
	built := make([]*toolEntry, len(defs))
	for _, i := range build {
		d := defs[i]
		e, err := t.build(s, d, hashes[i])
		switch {
		case err != nil:
			if first == nil {
				first = err
			}
			t.log.Warn("tool left out", "server", s.cfg.Name, "tool", d.Name, "err", err)
			outs[i] = &Quarantine{Server: s.cfg.Name, Tool: d.Name, Message: err.Error()}
		case e.diag != nil:
			outs[i] = e.diag
		default:
			built[i] = e
		}
	}
	entries := make([]*toolEntry, 0, len(defs))
	var diags []Quarantine
	for i := range defs {
		if outs[i] != nil {
			diags = append(diags, *outs[i])
		} else if built[i] != nil {
			entries = append(entries, built[i])
		}
	}
	// A tool the server no longer lists gives up its name, so that another
	// server may list one by that name later without a collision, and its
	// entry, so that it is checked for collisions again if it comes back.
	listed := make(map[string]bool, len(defs))
	for _, d := range defs {
		listed[d.Name] = true
	}
	for name, p := range t.owners {
		if p.server == s.cfg.Name && !listed[p.tool] {
			delete(t.owners, name)
		}
	}
	for _, e := range entries { // a twin of a tool gone keeps the name from others
		if k := t.key(s, e.tool); t.owners[k].server == "" {
			t.owners[k] = pair{s.cfg.Name, e.tool}
		}
	}
	for name := range s.built {
		if !listed[name] {
			delete(s.built, name)
		}
	}
	s.entries, s.diags = entries, diags
	t.snap = nil
	close(t.gen)
	t.gen = make(chan struct{})
	status := s.status()
	t.mu.Unlock()
	if len(entries) != before || initial {
		t.notify(status)
	}
	if len(changes) == 0 {
		return first
	}
	for _, c := range changes {
		ok := t.opts.onToolChanged(s.cfg.Name, c.old, c.new)
		t.mu.Lock()
		if ok {
			s.pins[c.new.Name] = pin{hash: c.hash, def: c.new}
			delete(s.refused, c.new.Name)
		} else {
			s.refused[c.new.Name] = c.hash
			t.log.Warn("tool change refused; the tool is out of the catalog", "server", s.cfg.Name, "tool", c.new.Name)
		}
		t.mu.Unlock()
	}
	// Every change is now pinned or refused, so this asks nothing.
	return t.apply(s, defs)
}

// changed records that s re-listed its tools, from its provider's
// callback, and wakes the worker; it never blocks.
func (t *Toolset) changed(s *server) {
	t.mu.Lock()
	s.dirty = true
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// sync takes in the current listing of s if it changed since the last.
func (t *Toolset) sync(s *server) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	t.mu.Lock()
	dirty := s.dirty && !s.out && s.listed
	s.dirty = false
	t.mu.Unlock()
	if dirty {
		t.apply(s, s.p.Tools())
	}
}

// work takes in re-listings until Close.
func (t *Toolset) work() {
	defer t.worker.Done()
	for {
		select {
		case <-t.done:
			return
		case <-t.wake:
			for _, s := range t.servers {
				t.sync(s)
			}
		}
	}
}
