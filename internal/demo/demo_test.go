package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/color"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// Must come first: when this binary is re-executed by TestSubprocess it
	// is the server, and must not run tests or print anything to stdout.
	ServeIfChild()
	goleak.VerifyTestMain(m)
}

// waitLimit bounds how long a test waits for something that should happen
// promptly, so a bug fails the test instead of hanging the run.
const waitLimit = 10 * time.Second

var clientImpl = &mcp.Implementation{Name: "demo-test", Version: "v0"}

// connector opens a client session to a fresh demo server over one transport.
type connector func(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession

var transports = []struct {
	name    string
	connect connector
}{
	{"inmemory", connectInMemory},
	{"streamable", connectHTTP},
}

func connectInMemory(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectTo(t, New(), opts)
}

// connectTo opens a client session to server over in-memory transports.
func connectTo(t *testing.T, server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(clientImpl, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func connectHTTP(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ts := httptest.NewServer(HTTPHandler())
	t.Cleanup(ts.Close)
	return connectURL(t, ts, opts)
}

// connectURL opens a streamable HTTP session to ts. Cleanups run in reverse,
// so the session is closed (and the server told so) before ts shuts down.
func connectURL(t *testing.T, ts *httptest.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()}
	cs, err := mcp.NewClient(clientImpl, opts).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call invokes a tool and fails the test on a protocol error; tool errors
// come back in the result for the caller to check.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

// callText invokes a tool that must succeed and returns its text.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return text(res)
}

// text joins the text parts of a result.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestInitialize(t *testing.T) {
	cs := connectInMemory(t, nil)
	init := cs.InitializeResult()
	if init.ServerInfo.Name != Name || init.ServerInfo.Version != Version {
		t.Errorf("server info = %+v, want %s %s", init.ServerInfo, Name, Version)
	}
	for _, want := range []string{"search_notes", "add_note", "list_notes"} {
		if !strings.Contains(init.Instructions, want) {
			t.Errorf("instructions do not mention %s:\n%s", want, init.Instructions)
		}
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Resources == nil {
		t.Errorf("capabilities = %+v, want tools and resources", init.Capabilities)
	}
}

func TestListTools(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, nil)
			res, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := make(map[string]*mcp.Tool)
			var names []string
			for _, tool := range res.Tools {
				tools[tool.Name] = tool
				names = append(names, tool.Name)
				if tool.Description == "" || tool.Annotations == nil {
					t.Errorf("%s: missing description or annotations", tool.Name)
				}
			}
			slices.Sort(names)
			want := []string{"add_note", "board_refresh", "broken_job", "color_swatch", "delete_note", "get_note", "list_notes", "note_stats", "notes_board", "search_notes", "slow_count", "tag_report"}
			if !slices.Equal(names, want) {
				t.Fatalf("tools = %v, want %v", names, want)
			}

			for _, name := range []string{"list_notes", "search_notes", "get_note", "note_stats", "color_swatch"} {
				if !tools[name].Annotations.ReadOnlyHint {
					t.Errorf("%s: readOnlyHint not set", name)
				}
			}
			add := tools["add_note"].Annotations
			if add.ReadOnlyHint || add.DestructiveHint == nil || *add.DestructiveHint {
				t.Errorf("add_note annotations = %+v, want not read-only, not destructive", add)
			}
			del := tools["delete_note"].Annotations
			if del.DestructiveHint == nil || !*del.DestructiveHint || !del.IdempotentHint {
				t.Errorf("delete_note annotations = %+v, want destructive and idempotent", del)
			}

			if tools["note_stats"].OutputSchema == nil {
				t.Error("note_stats has no outputSchema")
			}
			if tools["list_notes"].OutputSchema != nil {
				t.Error("list_notes has an outputSchema, want none")
			}

			// The jsonschema struct tags should reach the client as
			// property descriptions, and the extra constraints as well.
			props := schemaProps(t, tools["add_note"].InputSchema)
			if d, _ := props["title"]["description"].(string); d == "" {
				t.Errorf("add_note title has no description: %v", props["title"])
			}
			if typ := props["tags"]["type"]; typ != "array" {
				t.Errorf("add_note tags type = %v, want array", typ)
			}
			if req := schemaRequired(t, tools["add_note"].InputSchema); !slices.Equal(req, []string{"title", "body"}) {
				t.Errorf("add_note required = %v, want [title body]", req)
			}
			slow := schemaProps(t, tools["slow_count"].InputSchema)
			if slow["to"]["maximum"] != float64(maxSlowCount) || slow["delay_ms"]["default"] != float64(defaultSlowDelay) {
				t.Errorf("slow_count schema = %v", slow)
			}
		})
	}
}

func schemaProps(t *testing.T, schema any) map[string]map[string]any {
	t.Helper()
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	remarshal(t, schema, &s)
	return s.Properties
}

func schemaRequired(t *testing.T, schema any) []string {
	t.Helper()
	var s struct {
		Required []string `json:"required"`
	}
	remarshal(t, schema, &s)
	return s.Required
}

func remarshal(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
}

func TestNotes(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			cs := tr.connect(t, nil)

			if got := callText(t, cs, "list_notes", nil); got != "no notes yet" {
				t.Errorf("empty list = %q", got)
			}
			if got := callText(t, cs, "add_note", map[string]any{
				"title": "Groceries", "body": "eggs, MILK", "tags": []string{" Home", "errands", "home"},
			}); got != "added note #1: Groceries" {
				t.Errorf("add = %q", got)
			}
			if got := callText(t, cs, "add_note", map[string]any{
				"title": "Quarterly report", "body": "due Friday",
			}); got != "added note #2: Quarterly report" {
				t.Errorf("add = %q", got)
			}

			if got, want := callText(t, cs, "list_notes", map[string]any{}),
				"#1 Groceries [home, errands]\n#2 Quarterly report"; got != want {
				t.Errorf("list = %q, want %q", got, want)
			}
			for query, want := range map[string]string{
				"milk":    "#1 Groceries [home, errands]", // body, case-insensitive
				"REPORT":  "#2 Quarterly report",          // title
				"errand":  "#1 Groceries [home, errands]", // tag
				"nowhere": `no notes match "nowhere"`,
			} {
				if got := callText(t, cs, "search_notes", map[string]any{"query": query}); got != want {
					t.Errorf("search %q = %q, want %q", query, got, want)
				}
			}
			if got, want := callText(t, cs, "get_note", map[string]any{"id": 1}),
				"#1 Groceries\ntags: home, errands\n\neggs, MILK"; got != want {
				t.Errorf("get = %q, want %q", got, want)
			}

			if got := callText(t, cs, "delete_note", map[string]any{"id": 1}); got != "deleted note #1" {
				t.Errorf("delete = %q", got)
			}
			// Idempotent: deleting again is not an error.
			if got := callText(t, cs, "delete_note", map[string]any{"id": 1}); !strings.Contains(got, "nothing deleted") {
				t.Errorf("second delete = %q", got)
			}
			if got := callText(t, cs, "list_notes", nil); got != "#2 Quarterly report" {
				t.Errorf("list after delete = %q", got)
			}
			// Ids are not reused after a delete.
			if got := callText(t, cs, "add_note", map[string]any{"title": "Again", "body": ""}); got != "added note #3: Again" {
				t.Errorf("add after delete = %q", got)
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	cs := connectInMemory(t, nil)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"get_note", map[string]any{"id": 7}, "no note with id 7"},
		{"add_note", map[string]any{"title": "  ", "body": "x"}, "title must not be empty"},
		{"add_note", map[string]any{"body": "x"}, "title"}, // schema: required
		{"search_notes", map[string]any{"query": " "}, "query must not be empty"},
		{"slow_count", map[string]any{"to": 51}, "maximum"},
		{"color_swatch", map[string]any{"color": "chartreuse-ish"}, `unknown colour "chartreuse-ish"`},
	} {
		res := call(t, cs, tc.name, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s(%v) = isError %v, %q; want isError with %q", tc.name, tc.args, res.IsError, text(res), tc.want)
		}
	}
	if got := text(call(t, cs, "get_note", map[string]any{"id": 7})); got != "no note with id 7" {
		t.Errorf("get_note missing id text = %q, want exactly %q", got, "no note with id 7")
	}
}

func TestNoteStats(t *testing.T) {
	cs := connectInMemory(t, nil)

	res := call(t, cs, "note_stats", nil)
	var got noteStats
	remarshal(t, res.StructuredContent, &got)
	if want := (noteStats{Tags: map[string]int{}}); !reflect.DeepEqual(got, want) {
		t.Errorf("empty stats = %+v, want %+v", got, want)
	}

	callText(t, cs, "add_note", map[string]any{"title": "Short", "body": "", "tags": []string{"a", "b"}})
	callText(t, cs, "add_note", map[string]any{"title": "A longer title", "body": "", "tags": []string{"b"}})
	callText(t, cs, "add_note", map[string]any{"title": "Tiny", "body": ""})

	res = call(t, cs, "note_stats", nil)
	if res.IsError {
		t.Fatal(text(res))
	}
	got = noteStats{}
	remarshal(t, res.StructuredContent, &got)
	want := noteStats{Count: 3, Tags: map[string]int{"a": 1, "b": 2}, LongestTitle: "A longer title"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	if txt, want := text(res), "notes: 3\nlongest title: A longer title\ntags: a (1), b (2)"; txt != want {
		t.Errorf("stats text = %q, want %q", txt, want)
	}
}

func TestColorSwatch(t *testing.T) {
	cs := connectInMemory(t, nil)
	for _, tc := range []struct {
		in   string
		want color.RGBA
	}{
		{"#ff8800", color.RGBA{0xff, 0x88, 0x00, 0xff}},
		{"#F80", color.RGBA{0xff, 0x88, 0x00, 0xff}},
		{"Teal", color.RGBA{0x00, 0x80, 0x80, 0xff}},
	} {
		res := call(t, cs, "color_swatch", map[string]any{"color": tc.in})
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("color_swatch(%q) = %+v", tc.in, res)
		}
		if txt, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(txt.Text, hexColor(tc.want)) {
			t.Errorf("color_swatch(%q) first part = %#v, want text naming %s", tc.in, res.Content[0], hexColor(tc.want))
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" {
			t.Fatalf("color_swatch(%q) second part = %#v, want a PNG image", tc.in, res.Content[1])
		}
		decoded, err := png.Decode(bytes.NewReader(img.Data))
		if err != nil {
			t.Fatalf("color_swatch(%q): decoding PNG: %v", tc.in, err)
		}
		b := decoded.Bounds()
		if b.Dx() != swatchSize || b.Dy() != swatchSize {
			t.Errorf("color_swatch(%q) size = %v", tc.in, b)
		}
		for _, p := range []struct{ x, y int }{{0, 0}, {b.Max.X - 1, b.Max.Y - 1}, {swatchSize / 2, swatchSize / 3}} {
			if got := color.RGBAModel.Convert(decoded.At(p.x, p.y)); got != tc.want {
				t.Errorf("color_swatch(%q) pixel %v = %v, want %v", tc.in, p, got, tc.want)
			}
		}
	}
}

func TestResources(t *testing.T) {
	cs := connectInMemory(t, nil)
	ctx := t.Context()

	read := func(uri string) string {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("reading %s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "text/markdown" {
			t.Fatalf("reading %s: contents = %+v", uri, res.Contents)
		}
		return res.Contents[0].Text
	}

	if got := read(allNotesURI); !strings.Contains(got, "No notes yet.") {
		t.Errorf("empty %s = %q", allNotesURI, got)
	}
	callText(t, cs, "add_note", map[string]any{"title": "Groceries", "body": "eggs", "tags": []string{"home"}})
	callText(t, cs, "add_note", map[string]any{"title": "Report", "body": "due Friday"})
	want := "# Notes\n\n## #1 Groceries\n\nTags: home\n\neggs\n\n## #2 Report\n\ndue Friday\n"
	if got := read(allNotesURI); got != want {
		t.Errorf("%s = %q, want %q", allNotesURI, got, want)
	}
	if got := read("notes://2"); got != "## #2 Report\n\ndue Friday\n" {
		t.Errorf("notes://2 = %q", got)
	}
	for _, uri := range []string{"notes://9", "notes://x"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("reading %s succeeded, want not found", uri)
		}
	}

	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 2 || res.Resources[0].URI != allNotesURI || res.Resources[1].URI != boardURI {
		t.Errorf("ListResources = %+v, %v", res, err)
	}
	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	var templates []string
	if err == nil {
		for _, rt := range tmpl.ResourceTemplates {
			templates = append(templates, rt.URITemplate)
		}
	}
	if !slices.Contains(templates, noteURITemplate) || !slices.Contains(templates, "skill://weekly-review/{+path}") || len(templates) != 2 {
		t.Errorf("ListResourceTemplates = %v, %v", templates, err)
	}
}

func TestSlowCountProgress(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			progress := make(chan *mcp.ProgressNotificationParams, 100)
			cs := tr.connect(t, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					progress <- req.Params
				},
			})

			// Without a token there must be no notifications; the call with
			// a token below proves it, since its notifications arrive after
			// any stray ones from this call.
			if got := callText(t, cs, "slow_count", map[string]any{"to": 2, "delay_ms": 0}); got != "counted to 2" {
				t.Errorf("slow_count = %q", got)
			}

			params := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": 4, "delay_ms": 1}}
			params.SetProgressToken("tok-1")
			res, err := cs.CallTool(t.Context(), params)
			if err != nil || res.IsError || text(res) != "counted to 4" {
				t.Fatalf("slow_count with token = %+v, %v", res, err)
			}
			for i := 1; i <= 4; i++ {
				select {
				case p := <-progress:
					if p.ProgressToken != "tok-1" || p.Progress != float64(i) || p.Total != 4 {
						t.Errorf("notification %d = %+v", i, p)
					}
				case <-time.After(waitLimit):
					t.Fatalf("got %d progress notifications, want 4", i-1)
				}
			}
		})
	}
}

// slow_count waits its default delay at each step: in a bubble, where the
// clock moves only when everything waits on it, the call takes exactly
// that long.
func TestSlowCountDefaultDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := connectInMemory(t, nil)
		start := time.Now()
		callText(t, cs, "slow_count", map[string]any{"to": 2})
		if d, want := time.Since(start), 2*defaultSlowDelay*time.Millisecond; d != want {
			t.Errorf("slow_count to 2 with the default delay took %v, want %v", d, want)
		}
	})
}

func TestSlowCountCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	cs := connectInMemory(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case started <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		// Once progress arrives the handler is running; cancel it mid-count.
		select {
		case <-started:
		case <-ctx.Done():
		}
		cancel()
	}()
	params := &mcp.CallToolParams{Name: "slow_count", Arguments: map[string]any{"to": maxSlowCount, "delay_ms": 20}}
	params.SetProgressToken(1)
	_, err := cs.CallTool(ctx, params)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled slow_count err = %v, want context.Canceled", err)
	}
	// The session survives the cancelled call.
	callText(t, cs, "list_notes", nil)
}

// TestHTTPSharedState checks what HTTPHandler documents: sessions of one
// handler share the notes, separate handlers do not.
func TestHTTPSharedState(t *testing.T) {
	// t.Cleanup rather than defer: the sessions opened below close in
	// cleanups, and must do so before their server shuts down.
	ts := httptest.NewServer(HTTPHandler())
	t.Cleanup(ts.Close)
	other := httptest.NewServer(HTTPHandler())
	t.Cleanup(other.Close)

	callText(t, connectURL(t, ts, nil), "add_note", map[string]any{"title": "Shared", "body": ""})
	if got := callText(t, connectURL(t, ts, nil), "list_notes", nil); got != "#1 Shared" {
		t.Errorf("second session list = %q, want the first session's note", got)
	}
	if got := callText(t, connectURL(t, other, nil), "list_notes", nil); got != "no notes yet" {
		t.Errorf("other handler list = %q, want no notes", got)
	}
}

func TestSSE(t *testing.T) {
	ts := httptest.NewServer(SSEHandler())
	defer ts.Close()
	tr := &mcp.SSEClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()}
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callText(t, cs, "add_note", map[string]any{"title": "Over SSE", "body": ""})
	if got := callText(t, cs, "list_notes", nil); got != "#1 Over SSE" {
		t.Errorf("list = %q", got)
	}
}

func TestSubprocess(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("no executable path: %v", err)
	}
	// -test.run=^$ keeps the child from running tests should ServeIfChild
	// ever fail to take over.
	cmd := exec.Command(exe, "-test.run=^$")
	// atexit_sleep_ms=0 spares a second of the race detector's exit delay
	// when the tests run with -race; it is ignored otherwise.
	cmd.Env = append(os.Environ(), ChildEnv+"=stdio", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(clientImpl, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 12 {
		t.Errorf("subprocess has %d tools, want 12", len(res.Tools))
	}
	if name := cs.InitializeResult().ServerInfo.Name; name != Name {
		t.Errorf("subprocess server name = %q", name)
	}
	callText(t, cs, "add_note", map[string]any{"title": "From parent", "body": ""})
	// Closing stdin ends the child's session: ServeIfChild must exit 0.
	if err := cs.Close(); err != nil {
		t.Errorf("closing subprocess session: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("child exit code = %d, want 0", code)
	}
}

func TestParseColor(t *testing.T) {
	for in, want := range map[string]color.RGBA{
		"#000":     {0, 0, 0, 0xff},
		"123456":   {0x12, 0x34, 0x56, 0xff},
		" GREY ":   {0x80, 0x80, 0x80, 0xff},
		"#abcdef":  {0xab, 0xcd, 0xef, 0xff},
		"#AbCdEf":  {0xab, 0xcd, 0xef, 0xff},
		"lime":     {0x00, 0xff, 0x00, 0xff},
		"magenta":  {0xff, 0x00, 0xff, 0xff},
		"#fff":     {0xff, 0xff, 0xff, 0xff},
		"#ff88001": {},
	} {
		got, err := parseColor(in)
		if want == (color.RGBA{}) {
			if err == nil {
				t.Errorf("parseColor(%q) = %v, want error", in, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("parseColor(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "#", "#ggg", "#12345", "+12345", "red!"} {
		if _, err := parseColor(bad); err == nil {
			t.Errorf("parseColor(%q) succeeded, want error", bad)
		}
	}
}
