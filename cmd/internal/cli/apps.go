package cli

import (
	"context"
	"flag"
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/plural"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/tool"
)

// addAppTarget is [AddTarget] for a command that shows MCP Apps.
func addAppTarget(fs *flag.FlagSet) *Target {
	t := AddTarget(fs)
	t.apps = true
	return t
}

// AddAppTarget is [AddTarget] for a command that renders MCP Apps (web):
// the servers are told the host renders them.
func AddAppTarget(fs *flag.FlagSet) *Target { return addAppTarget(fs) }

// providerOptions sets in o what every server's provider gets from the
// command: the MCP Apps extension declared for the commands that show apps
// (tools, call, read), so that a server lists its apps to them, and the
// description cap of --max-description (none for lint, which says each
// cut).
func (t *Target) providerOptions(o *mcptool.Options) {
	o.Apps = t.apps
	switch {
	case t.wholeDescriptions:
		o.Limits.Description = math.MaxInt
	case t.maxDescription > 0:
		o.Limits.Description = int(t.maxDescription)
	}
}

// A savedApp is the interface of a called tool, saved by call with --out:
// where it came from and where it is ("" when not saved). call --json
// prints it as "app".
type savedApp struct {
	URI  string `json:"uri"`
	Path string `json:"path,omitempty"`
	size int
}

func (a *savedApp) line() string {
	if a.Path == "" {
		return fmt.Sprintf("[app %s: not saved; --out DIR saves it]", untrusted.Line(a.URI))
	}
	return fmt.Sprintf("[app %s, %s, saved to %s]", untrusted.Line(a.URI), plural.Count(a.size, "byte", "bytes"), a.Path)
}

// saveApp saves the interface of the tool name (a snapshot's name for it)
// in dir, when the tool has one; without a dir it is not read, and a call
// leaves no file behind it. It is nil, and a line on errw says why, when
// the interface cannot be read or saved, for the call itself succeeded.
func saveApp(ctx context.Context, ts *catalog.Toolset, snap *catalog.Snapshot, name, dir string, errw io.Writer) *savedApp {
	server, own, _ := snap.Lookup(name)
	p, ok := ts.Provider(server)
	if !ok {
		return nil
	}
	uri := tool.Definition{Meta: p.ToolMeta()[own]}.App().ResourceURI
	if uri == "" {
		return nil
	}
	if dir == "" {
		return &savedApp{URI: uri}
	}
	app, err := p.ReadApp(ctx, uri)
	if err == nil {
		page := []byte(withPolicy(app.HTML, app.CSP.Policy()))
		var path string
		if path, err = saveFile(dir, fmt.Sprintf("mcpbridge-%s-app-*.html", safeFile(name)), page); err == nil {
			return &savedApp{URI: uri, Path: path, size: len(page)}
		}
	}
	fmt.Fprintf(errw, "mcpbridge: the app of %s was not saved: %s\n", untrusted.Line(name), untrusted.Line(err.Error()))
	return nil
}

// withPolicy puts policy in doc as a Content-Security-Policy meta element,
// first thing after the doctype (or first of all without one), where no
// comment or element of the server's can come before it: a browser that
// opens the saved page applies the policy its server declared, not the
// freedom of a local file.
func withPolicy(doc, policy string) string {
	meta := `<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(policy) + `">`
	rest := strings.TrimLeft(doc, " \t\r\n\ufeff")
	if len(rest) >= len("<!doctype") && strings.EqualFold(rest[:len("<!doctype")], "<!doctype") {
		if end := strings.IndexByte(rest, '>'); end >= 0 {
			at := len(doc) - len(rest) + end + 1
			return doc[:at] + meta + doc[at:]
		}
	}
	return meta + doc
}
