package catalog

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// env is a variable lookup over a fixed map, so no test depends on the
// environment it runs in.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// coreOf is the core of the provider server s makes, without host options.
func coreOf(s config.Server) *mcpclient.Provider {
	_, p := providerOf(s, nil, nil, nil)
	return p
}

// The provider a server config builds carries its name and its settings.
func TestProviderName(t *testing.T) {
	for _, s := range []config.Server{
		{Name: "my-files", Command: "/usr/bin/files-server", Args: []string{"x"}, Env: map[string]string{"A": "b"}, Dir: "/"},
		{Name: "remote", URL: "https://example.com/mcp", Headers: map[string]string{"A": "b"}},
	} {
		if got := coreOf(s).Name(); got != s.Name {
			t.Errorf("Provider().Name() = %q, want %q", got, s.Name)
		}
		if got := mcpclient.FromURL("https://other.example", optionsOf(s)...).Name(); got != s.Name {
			t.Errorf("Options() name %q, want %q", got, s.Name)
		}
	}
	// The options are passed on even when mcptool will refuse them, so
	// Connect says what is wrong rather than doing something else.
	bad := config.Server{Name: "bad", URL: "https://127.0.0.1:1/mcp", Env: map[string]string{"A": "b"}}
	var ce *mcpclient.ConfigError
	if err := coreOf(bad).Connect(t.Context()); !errors.As(err, &ce) || ce.Server != "bad" {
		t.Errorf("Connect: %v, want a ConfigError for server %q", err, "bad")
	}
}

// Headers, allowed tools, disabled tools and the description cap reach a
// real server: the demo, over streamable HTTP on loopback.
func TestProviderConnects(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	handler := demo.HTTPHandler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()

	data := fmt.Sprintf(`{"mcpServers": {
		"picked": {
			"url": "%[1]s/mcp", "type": "http",
			"headers": {"Authorization": "Bearer ${NOTES_TOKEN}"},
			"allowedTools": ["add_note", "get_note"],
			"timeout": 10, "callTimeout": "5s", "maxDescription": 8
		},
		"most": {"url": "%[1]s/mcp", "disabledTools": ["delete_note", "slow_count", "color_swatch", "tag_report", "broken_job"]}
	}}`, ts.URL)
	c, err := config.Loader{LookupEnv: env(map[string]string{"NOTES_TOKEN": "t0k"})}.Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"picked": {"add_note", "get_note"},
		"most":   {"add_note", "get_note", "list_notes", "note_stats", "notes_board", "search_notes"},
	}
	for _, s := range c.Servers {
		p := coreOf(s)
		if err := p.Connect(t.Context()); err != nil {
			t.Fatal(err)
		}
		got := p.ToolNames()
		for _, d := range p.Tools() {
			if cut := strings.HasSuffix(d.Description, "[…]"); cut != (s.Name == "picked") {
				t.Errorf("%s: description %q: want it cut to 8 characters only with \"maxDescription\": 8", s.Name, d.Description)
			}
		}
		p.Close()
		slices.Sort(got)
		if !slices.Equal(got, want[s.Name]) {
			t.Errorf("%s: tools %q, want %q", s.Name, got, want[s.Name])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(auth, "Bearer t0k") || !slices.Contains(auth, "") {
		t.Errorf("Authorization headers %q: want %q from one server and none from the other", auth, "Bearer t0k")
	}
}

// Proves that a server's "roots" are read (references expanded), checked
// (an empty or repeated one named), and declared to that server alone, a
// relative one from the working directory; a server without "roots" is
// told of none.
func TestRootsKey(t *testing.T) {
	c, err := config.Loader{LookupEnv: func(string) (string, bool) { return "/srv", true }}.Parse([]byte(`{"mcpServers": {
		"files": {"command": "fs", "roots": ["${DIR}/site", "rel"]},
		"other": {"command": "fs"},
		"bad":   {"command": "fs", "roots": ["", "/a", "/a"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	for _, want := range []string{`server "bad": key "roots": root 1: an empty directory`, `server "bad": key "roots": "/a" is listed twice`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want %q", err, want)
		}
	}
	if strings.Contains(err.Error(), `"files"`) {
		t.Errorf("Validate refused good roots: %v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]mcpclient.Root
	for _, sc := range c.Servers[:2] {
		got = append(got, coreOf(sc).Roots())
	}
	want := [][]mcpclient.Root{{{URI: "file:///srv/site", Name: "site"}, {URI: "file://" + filepath.ToSlash(filepath.Join(wd, "rel")), Name: "rel"}}, nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roots declared: %v, want %v", got, want)
	}
}
