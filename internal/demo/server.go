package demo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the Implementation name the demo server reports in its initialize
// result, so that tests and examples can tell they reached the demo and not
// some other server.
const Name = "mcpbridge-demo"

// Version is the Implementation version the demo server reports. It changes
// only when the demo's tools change in a way a test could notice.
const Version = "0.1.0"

// instructions is sent in the initialize result. It is written for a model,
// not a person: it says how the tools fit together, which a tool list alone
// does not.
const instructions = `This server keeps a small collection of notes.
Before calling add_note, call search_notes with a key word from the title to avoid creating a duplicate.
Note ids are small integers (shown as #3 and passed as id 3); take them from list_notes or search_notes instead of guessing. get_note fails for an unknown id.
note_stats returns counts as structured data. The notes://all resource holds every note as markdown.
color_swatch and slow_count are demonstration tools unrelated to notes: color_swatch returns a PNG image, slow_count reports progress while it counts.
tag_report reports on the notes carrying a tag, as a task that asks the user for the tag when none is given; broken_job is a task that fails.`

const (
	maxSlowCount     = 50
	defaultSlowDelay = 50    // milliseconds
	maxSlowDelay     = 10000 // milliseconds; keeps a mistaken call from hanging a session for long
)

// allNotesURI is the fixed resource holding every note; noteURITemplate
// addresses a single note.
const (
	allNotesURI     = "notes://all"
	noteURITemplate = "notes://{id}"
	noteURIPrefix   = "notes://"
)

// New returns a fresh demo server. Its notes are its own and in memory,
// unless [WithNotesFile] keeps them in a file: every call yields independent
// state, so tests can run servers in parallel without seeing each other's
// notes.
func New(opts ...Option) *mcp.Server {
	var c config
	for _, o := range opts {
		o(&c)
	}
	st := newStore(c.notes)
	s := mcp.NewServer(&mcp.Implementation{
		Name:    Name,
		Title:   "mcpbridge demo notes server",
		Version: Version,
	}, &mcp.ServerOptions{Instructions: instructions, Capabilities: capabilities()})

	addNoteTools(s, st)
	addDemoTools(s)
	addTaskTools(s, st, c.now)
	addNoteResources(s, st)
	addBoard(s, st)
	addSkills(s)
	if c.tracer != nil {
		traced(s, c.tracer)
	}
	return s
}

// capabilities declares what the server offers beyond what go-sdk infers
// from its tools and resources: the Skills and tasks extensions.
func capabilities() *mcp.ServerCapabilities {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true}}
	caps.AddExtension(skillsExtension, nil)
	caps.AddExtension(tasksExtension, nil)
	return caps
}

type addNoteIn struct {
	Title string   `json:"title" jsonschema:"short title of the note, shown by list_notes"`
	Body  string   `json:"body" jsonschema:"the text of the note"`
	Tags  []string `json:"tags,omitempty" jsonschema:"optional labels such as work or home; matched by search_notes and counted by note_stats"`
}

type searchNotesIn struct {
	Query string `json:"query" jsonschema:"text to look for, case-insensitively, in titles, bodies and tags"`
}

type getNoteIn struct {
	ID int `json:"id" jsonschema:"id of the note to fetch: 3 for the note listed as #3"`
}

type deleteNoteIn struct {
	ID int `json:"id" jsonschema:"id of the note to delete: 3 for the note listed as #3"`
}

// noteStats is the structured output of note_stats. Its JSON field names are
// part of the tool's advertised outputSchema.
type noteStats struct {
	Count        int            `json:"count" jsonschema:"number of notes"`
	Tags         map[string]int `json:"tags" jsonschema:"number of notes carrying each tag"`
	LongestTitle string         `json:"longest_title" jsonschema:"the longest note title; empty when there are no notes"`
}

type slowCountIn struct {
	To      int `json:"to" jsonschema:"number to count up to, at most 50"`
	DelayMS int `json:"delay_ms,omitempty" jsonschema:"milliseconds to wait before each step; 50 when omitted"`
}

type colorSwatchIn struct {
	Color string `json:"color" jsonschema:"a hex colour like #ff8800 or #f80, or a basic CSS colour name like teal"`
}

// Every tool sets OpenWorldHint to false: none reaches beyond this process,
// and saying so lets clients skip confirmations meant for tools that touch
// the outside world. The spec's default for an absent hint is true.

func addNoteTools(s *mcp.Server, st *store) {
	mcp.AddTool(s, &mcp.Tool{
		Name:  "add_note",
		Title: "Add note",
		Description: "Store a new note and return its id. " +
			"Search first with search_notes: adding the same note twice creates two notes.",
		InputSchema: inputSchema[addNoteIn](func(p map[string]*jsonschema.Schema) {
			p["title"].MinLength = new(1)
			// jsonschema-go infers ["null","array"] for a slice; some model
			// providers reject type lists, and an absent tags is enough.
			p["tags"].Types = nil
			p["tags"].Type = "array"
		}),
		Annotations: &mcp.ToolAnnotations{
			Title:           "Add note",
			DestructiveHint: new(false),
			OpenWorldHint:   new(false),
		},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in addNoteIn) (*mcp.CallToolResult, any, error) {
		title := strings.TrimSpace(in.Title)
		if title == "" {
			return nil, nil, errors.New("title must not be empty")
		}
		n, err := st.add(title, in.Body, cleanTags(in.Tags))
		if err != nil {
			return nil, nil, err
		}
		return textResult(fmt.Sprintf("added note #%d: %s", n.ID, n.Title)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_notes",
		Title:       "List notes",
		Description: "List all notes, one per line as \"#id title [tags]\", oldest first.",
		Annotations: &mcp.ToolAnnotations{Title: "List notes", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		notes, err := st.all()
		if err != nil {
			return nil, nil, err
		}
		if len(notes) == 0 {
			return textResult("no notes yet"), nil, nil
		}
		return textResult(lines(notes)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "search_notes",
		Title: "Search notes",
		Description: "Find notes whose title, body or tags contain the query (case-insensitive). " +
			"Returns one line per match as \"#id title [tags]\".",
		InputSchema: inputSchema[searchNotesIn](func(p map[string]*jsonschema.Schema) {
			p["query"].MinLength = new(1)
		}),
		Annotations: &mcp.ToolAnnotations{Title: "Search notes", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in searchNotesIn) (*mcp.CallToolResult, any, error) {
		q := strings.TrimSpace(in.Query)
		if q == "" {
			return nil, nil, errors.New("query must not be empty; use list_notes to see every note")
		}
		found, err := st.search(q)
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 {
			return textResult(fmt.Sprintf("no notes match %q", q)), nil, nil
		}
		return textResult(lines(found)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_note",
		Title:       "Get note",
		Description: "Return the full text of one note. Fails if no note has that id.",
		InputSchema: inputSchema[getNoteIn](minID),
		Annotations: &mcp.ToolAnnotations{Title: "Get note", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in getNoteIn) (*mcp.CallToolResult, any, error) {
		n, ok, err := st.get(in.ID)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			// Returned as an error so the SDK sets isError: the model sees the
			// message and can recover, rather than the call failing at the
			// protocol level.
			return nil, nil, fmt.Errorf("no note with id %d", in.ID)
		}
		return textResult(n.text()), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "delete_note",
		Title: "Delete note",
		Description: "Delete a note permanently. Deleting an id that does not exist is not an error, " +
			"so retrying is safe.",
		InputSchema: inputSchema[deleteNoteIn](minID),
		Annotations: &mcp.ToolAnnotations{
			Title:           "Delete note",
			DestructiveHint: new(true),
			IdempotentHint:  true,
			OpenWorldHint:   new(false),
		},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in deleteNoteIn) (*mcp.CallToolResult, any, error) {
		removed, err := st.remove(in.ID)
		if err != nil {
			return nil, nil, err
		}
		if !removed {
			return textResult(fmt.Sprintf("no note with id %d; nothing deleted", in.ID)), nil, nil
		}
		return textResult(fmt.Sprintf("deleted note #%d", in.ID)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "note_stats",
		Title:       "Note statistics",
		Description: "Count the notes and their tags. Returns structured content matching the output schema, plus a text summary.",
		Annotations: &mcp.ToolAnnotations{Title: "Note statistics", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, noteStats, error) {
		notes, err := st.all()
		if err != nil {
			return nil, noteStats{}, err
		}
		stats := computeStats(notes)
		// Setting Content ourselves stops the SDK from filling it with the raw
		// JSON of stats; clients without structured-content support get a
		// readable summary instead.
		return textResult(stats.text()), stats, nil
	})
}

func addDemoTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:  "color_swatch",
		Title: "Colour swatch",
		Description: fmt.Sprintf("Draw a %dx%d PNG filled with one colour. ", swatchSize, swatchSize) +
			"Accepts #rgb, #rrggbb or one of: " + colorNames() + ".",
		Annotations: &mcp.ToolAnnotations{Title: "Colour swatch", ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in colorSwatchIn) (*mcp.CallToolResult, any, error) {
		c, err := parseColor(in.Color)
		if err != nil {
			return nil, nil, err
		}
		img, err := swatchPNG(c, swatchSize)
		if err != nil {
			return nil, nil, fmt.Errorf("encoding PNG: %w", err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: fmt.Sprintf("%dx%d swatch of %s", swatchSize, swatchSize, hexColor(c))},
			&mcp.ImageContent{Data: img, MIMEType: "image/png"},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  "slow_count",
		Title: "Slow count",
		Description: "Count from 1 up to a number, pausing before each step and reporting progress when the " +
			"request carries a progress token. Useful for testing timeouts, cancellation and progress.",
		InputSchema: inputSchema[slowCountIn](func(p map[string]*jsonschema.Schema) {
			p["to"].Minimum = new(1.0)
			p["to"].Maximum = new(float64(maxSlowCount))
			p["delay_ms"].Minimum = new(0.0)
			p["delay_ms"].Maximum = new(float64(maxSlowDelay))
			p["delay_ms"].Default = []byte(strconv.Itoa(defaultSlowDelay))
		}),
		Annotations: &mcp.ToolAnnotations{
			Title:          "Slow count",
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  new(false),
		},
	}, slowCount)
}

func slowCount(ctx context.Context, req *mcp.CallToolRequest, in slowCountIn) (*mcp.CallToolResult, any, error) {
	// The schema's default is applied before decoding, so a missing delay_ms
	// arrives as 50 while an explicit 0 stays 0 (handy for fast tests).
	delay := time.Duration(in.DelayMS) * time.Millisecond
	token := req.Params.GetProgressToken()
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for i := 1; i <= in.To; i++ {
		if i > 1 {
			timer.Reset(delay)
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("stopped at %d of %d: %w", i-1, in.To, ctx.Err())
		case <-timer.C:
		}
		if token == nil {
			continue
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(i),
			Total:         float64(in.To),
			Message:       fmt.Sprintf("counted %d of %d", i, in.To),
		})
		if err != nil {
			// The session is gone or the request was cancelled; there is
			// nobody left to count for.
			return nil, nil, fmt.Errorf("sending progress: %w", err)
		}
	}
	return textResult(fmt.Sprintf("counted to %d", in.To)), nil, nil
}

func addNoteResources(s *mcp.Server, st *store) {
	s.AddResource(&mcp.Resource{
		URI:         allNotesURI,
		Name:        "all_notes",
		Title:       "All notes",
		Description: "Every note, rendered as markdown.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		var b strings.Builder
		b.WriteString("# Notes\n\n")
		notes, err := st.all()
		if err != nil {
			return nil, err
		}
		if len(notes) == 0 {
			b.WriteString("No notes yet.\n")
		}
		for i, n := range notes {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(n.markdown())
		}
		return markdownResult(req.Params.URI, b.String()), nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: noteURITemplate,
		Name:        "note",
		Title:       "One note",
		Description: "A single note by id, rendered as markdown.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, err := strconv.Atoi(strings.TrimPrefix(uri, noteURIPrefix))
		if err != nil {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		n, ok, err := st.get(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return markdownResult(uri, n.markdown()), nil
	})
}

func computeStats(notes []note) noteStats {
	// Tags must be a non-nil map: a nil map marshals to null, which fails the
	// SDK's validation against the "object" output schema.
	stats := noteStats{Count: len(notes), Tags: make(map[string]int)}
	longest := -1
	for _, n := range notes {
		for _, t := range n.Tags {
			stats.Tags[t]++
		}
		if l := utf8.RuneCountInString(n.Title); l > longest {
			longest = l
			stats.LongestTitle = n.Title
		}
	}
	return stats
}

func (s noteStats) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "notes: %d", s.Count)
	if s.Count > 0 {
		fmt.Fprintf(&b, "\nlongest title: %s", s.LongestTitle)
	}
	if len(s.Tags) > 0 {
		var parts []string
		for _, t := range slices.Sorted(maps.Keys(s.Tags)) {
			parts = append(parts, fmt.Sprintf("%s (%d)", t, s.Tags[t]))
		}
		fmt.Fprintf(&b, "\ntags: %s", strings.Join(parts, ", "))
	}
	return b.String()
}

func lines(notes []note) string {
	out := make([]string, len(notes))
	for i, n := range notes {
		out[i] = n.line()
	}
	return strings.Join(out, "\n")
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func markdownResult(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI:      uri,
		MIMEType: "text/markdown",
		Text:     text,
	}}}
}

// inputSchema infers the schema for T as mcp.AddTool would, then lets the
// caller add the constraints (bounds, defaults) that struct tags cannot
// express, so that bad arguments are rejected before the handler runs.
func inputSchema[T any](edit func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("demo: inferring schema for %T: %v", *new(T), err))
	}
	if edit != nil {
		edit(s.Properties)
	}
	return s
}

func minID(p map[string]*jsonschema.Schema) {
	p["id"].Minimum = new(1.0)
}
