package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/internal/telemetry"
	"github.com/mcpbridge/mcpbridge/internal/toolschema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// A Snapshot is the catalog of a [Toolset] at one moment: the tools a model
// is offered for one turn, and the handler that serves exactly those. It
// never changes: a re-listing after it was taken shows in the next
// snapshot only, so the tools of a turn, and a vendor's prompt cache keyed
// on them, stay put while the turn runs.
type Snapshot struct {
	namer  *toolschema.Namer
	defs   []tool.Definition
	byName map[string]*toolEntry
	byPair map[pair]*toolEntry
}

// Snapshot returns the current catalog. It first re-lists the tools of every
// server whose listing has outlived its time to live (an error is logged,
// and the old listing kept), and takes in every re-listing made so far,
// asking an [OnToolChanged] function about changed tools; it therefore waits
// for such a function still running. Between changes it returns the same
// *Snapshot.
func (t *Toolset) Snapshot(ctx context.Context) *Snapshot {
	var wg sync.WaitGroup
	for _, s := range t.servers {
		if t.isOut(s) {
			continue
		}
		wg.Go(func() {
			// A server not ready (closed, being rebuilt) has nothing to
			// refresh from; its last listing stands.
			if st, _ := s.p.State(); st == mcpclient.StateReady {
				if err := s.p.RefreshIfStale(ctx); err != nil {
					t.log.WarnContext(ctx, "stale tool listing not refreshed; keeping the old one", "server", s.cfg.Name, "err", err)
				}
			}
			t.sync(s)
		})
	}
	wg.Wait()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snap != nil {
		return t.snap
	}
	snap := &Snapshot{namer: t.namer, byName: map[string]*toolEntry{}, byPair: map[pair]*toolEntry{}}
	for _, s := range t.servers {
		for _, e := range s.entries {
			snap.defs = append(snap.defs, e.def)
			snap.byName[e.def.Name] = e
			snap.byPair[pair{s.cfg.Name, e.tool}] = e
		}
	}
	t.snap = snap
	return snap
}

var _ tool.Source = (*Toolset)(nil)

// Offer returns the current [Snapshot] as a [tool.Set]: the [tool.Source]
// an agent takes one Set of per run. Its Servers holds, by the server's
// name, what each running server brings besides its tools, as its
// provider's Offer does: its instructions, its skills, a reader of its
// resources.
func (t *Toolset) Offer(ctx context.Context) (tool.Set, error) {
	snap := t.Snapshot(ctx)
	set := tool.Set{Definitions: snap.Definitions(), Handler: snap}
	for _, s := range t.servers {
		if t.isOut(s) {
			continue
		}
		// What the server brings is what its provider offers with its
		// tools: one listing and one shelf of skills per server.
		own, err := s.p.Offer(ctx)
		if srv, ok := own.Servers[s.p.Name()]; ok && err == nil {
			if set.Servers == nil {
				set.Servers = map[string]tool.Server{}
			}
			set.Servers[s.cfg.Name] = srv
		}
	}
	return set, nil
}

// Definitions returns the tools of the snapshot as a model should see them:
// final names, schemas lowered for the vendor, servers in config order and
// each server's tools in its order. The slice is a copy.
func (s *Snapshot) Definitions() []tool.Definition { return slices.Clone(s.defs) }

// Handler returns the handler of the snapshot's tools: the snapshot itself.
func (s *Snapshot) Handler() tool.Handler { return s }

// Lookup returns the server and the server's own name of the tool a final
// name, or its alias mcp__<server>__<tool>, stands for in this snapshot.
func (s *Snapshot) Lookup(name string) (server, toolName string, ok bool) {
	e := s.find(name)
	if e == nil {
		return "", "", false
	}
	return e.server.cfg.Name, e.tool, true
}

func (s *Snapshot) find(name string) *toolEntry {
	if e := s.byName[name]; e != nil {
		return e
	}
	if server, toolName, ok := s.namer.Lookup(name); ok {
		return s.byPair[pair{server, toolName}]
	}
	o, ok, _ := names.Resolve(name, func(o tool.Origin) bool { return s.byPair[pair{o.Server, o.Tool}] != nil })
	if !ok {
		return nil
	}
	return s.byPair[pair{o.Server, o.Tool}]
}

// Call runs a call to one of the snapshot's tools, by its final name or its
// alias; any other name is a [tool.UnservedError]. The arguments (none
// meaning {}; a value the model stringified accepted wherever the schema
// wants an object or an array, see [toolschema.DecodeStringified]) are checked against
// the tool's own input schema first: a violation is a [tool.FailedError]
// naming the argument, and the server never sees the call. For a tool lowered to
// OpenAI's strict mode, the nulls the model sends for optional arguments are
// removed first (see toolschema.DropNullOptionals).
func (s *Snapshot) Call(ctx context.Context, name string, args json.RawMessage) (tool.Reply, error) {
	e, args, err := s.prepare(ctx, name, args)
	if err != nil {
		return tool.Reply{}, err
	}
	res, err := e.server.call.Call(ctx, e.tool, args)
	var fe *tool.FailedError
	if errors.As(err, &fe) && fe.Name != name {
		// The model called it by its final name; say that one.
		return res, &tool.FailedError{Name: name, Message: fe.Message, Err: fe.Err}
	}
	return res, err
}

// prepare finds the tool called as name and readies its arguments, as
// [Snapshot.Call] describes; a refusal is counted.
func (s *Snapshot) prepare(ctx context.Context, name string, args json.RawMessage) (*toolEntry, json.RawMessage, error) {
	e := s.find(name)
	if e == nil {
		return nil, nil, &tool.UnservedError{Name: name}
	}
	args, err := e.prepare(name, args)
	if err != nil {
		e.server.t.tel.Refused(ctx, name, telemetry.RefusedArguments, err)
		return nil, nil, err
	}
	return e, args, nil
}
