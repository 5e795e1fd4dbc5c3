package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP Apps extension (io.modelcontextprotocol/ui): a tool declares, in
// its _meta.ui, a ui:// resource holding an HTML interface a host renders in
// a sandboxed frame ([tool.App] reads the declaration); the types of
// @modelcontextprotocol/ext-apps (McpUiToolMeta, McpUiResourceMeta) are
// its reference.
const (
	// AppsExtension identifies the extension in capabilities.extensions.
	AppsExtension = "io.modelcontextprotocol/ui"
	// AppMIMEType is the MIME type of an app's HTML resource.
	AppMIMEType = "text/html;profile=mcp-app"
)

// WithApps declares that the host renders MCP Apps: the client's
// capabilities carry the extension, with [AppMIMEType] as the one MIME
// type it renders, as the extension asks. Some servers list their app
// tools, or their interfaces, only to a client that declares it. Whether or
// not it is given, a tool the server keeps for its app ("visibility":
// ["app"]) is never offered to a model, and [Provider.ReadApp] reads any
// tool's interface.
func WithApps() Option { return func(c *config) { c.apps = true } }

// An AppResource is an MCP App's interface as [Provider.ReadApp] reads it,
// and AppCSP and AppPermissions what it asks of its frame: mcptool's
// AppResource, AppCSP and AppPermissions, whose docs say each field, with
// the same fields (mcptool converts them). Everything in them is the
// server's.
type (
	AppResource struct {
		URI, HTML     string
		CSP           AppCSP
		Permissions   AppPermissions
		Domain        string
		PrefersBorder *bool
	}
	AppCSP struct {
		ConnectDomains  []string `json:"connectDomains,omitempty"`
		ResourceDomains []string `json:"resourceDomains,omitempty"`
		FrameDomains    []string `json:"frameDomains,omitempty"`
		BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
	}
	AppPermissions struct {
		Camera, Microphone, Geolocation, ClipboardWrite bool
	}
)

// cspSource is an origin a policy may name: a scheme, a host (its first
// label may be *), a port and a path, without a character that could end
// the source or the directive (white space, ';', ',', a quote).
var cspSource = regexp.MustCompile(`^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5}|:\*)?(/[A-Za-z0-9._~%/-]*)?$`)

// Policy returns the Content-Security-Policy a host renders the app under:
// nothing by default ("default-src 'none'"), inline scripts and styles (an
// app's HTML carries its own), data: images, fonts and media, and each kind
// of request only to the origins the app declared for it, as the
// extension maps them (connect-src, frame-src and base-uri, and the
// resource domains for scripts, styles, images, fonts and media), with no
// frame and no other base URI when none is declared. A declared origin that
// is not scheme://host[:port][/path] over http(s) or ws(s) is left out, so
// no server text can add a directive or a keyword.
func (c AppCSP) Policy() string {
	// sources lists always, then the valid origins of list; none if that
	// is nothing.
	sources := func(always, none string, list []string) string {
		var out []string
		if always != "" {
			out = append(out, always)
		}
		for _, s := range list {
			if cspSource.MatchString(s) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return none
		}
		return strings.Join(out, " ")
	}
	res := c.ResourceDomains
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + sources("'unsafe-inline'", "", res),
		"style-src " + sources("'unsafe-inline'", "", res),
		"img-src " + sources("data:", "", res),
		"font-src " + sources("data:", "", res),
		"media-src " + sources("data:", "", res),
		"connect-src " + sources("", "'none'", c.ConnectDomains),
		"frame-src " + sources("", "'none'", c.FrameDomains),
		"base-uri " + sources("", "'self'", c.BaseURIDomains),
		"object-src 'none'",
	}, "; ")
}

// cspSchemes are the schemes of the URLs each scheme of a source may match
// under CSP (http also https, ws and wss; https also wss), so that an
// allowlist built from the sources is never narrower than the policy.
var cspSchemes = map[string][]string{
	"http":  {"http", "https", "ws", "wss"},
	"https": {"https", "wss"},
	"ws":    {"ws", "wss", "http", "https"},
	"wss":   {"wss", "https"},
}

// ConnectionAllowlist returns the Connection-Allowlist header (WICG
// Connection Allowlists; Chromium enforces it from version 152) a host
// serves an app's document with: a URL pattern for each origin the app
// declared it requests (its connect, resource and frame domains that
// [AppCSP.Policy] takes), nothing else, and WebRTC blocked. The policy
// says which kind of request may go where; the allowlist closes what CSP
// does not govern: WebRTC's STUN and TURN, resource hints (preconnect,
// dns-prefetch), the document's own navigations. It is never narrower
// than the policy for a declared origin (a source's scheme admits the
// schemes CSP lets it match, its path is left to CSP), and with nothing
// declared it allows nothing.
func ConnectionAllowlist(c AppCSP) string {
	var patterns []string
	for _, s := range slices.Concat(c.ConnectDomains, c.ResourceDomains, c.FrameDomains) {
		if !cspSource.MatchString(s) {
			continue
		}
		scheme, rest, _ := strings.Cut(s, "://")
		host, _, _ := strings.Cut(rest, "/")
		for _, sc := range cspSchemes[scheme] {
			if p := strconv.Quote(sc + "://" + host + "/*"); !slices.Contains(patterns, p) {
				patterns = append(patterns, p)
			}
		}
	}
	return "(" + strings.Join(patterns, " ") + ");webrtc=block"
}

// ReadApp reads an MCP App's interface: the ui:// resource at uri (a
// tool's [tool.App] ResourceURI), which must hold an HTML document of the
// type [AppMIMEType], as text or as a blob of UTF-8. What the server asks
// of the frame (CSP, permissions, domain, border) is read from the content's
// _meta.ui, or, when that is absent, from the resource's entry in
// resources/list, as the extension says hosts read it; a listing that fails
// leaves it at the defaults, which deny. It works whether or not the tool is
// offered to a model, and with or without [WithApps].
//
// A uri that is not ui:// is a [ConfigError]; a resource that is not an
// app's HTML, or whose _meta.ui is malformed, a [ProtocolError] naming it.
func (p *Provider) ReadApp(ctx context.Context, uri string) (*AppResource, error) {
	op := operation{"resources/read", uri}
	if !strings.HasPrefix(uri, "ui://") {
		return nil, &ConfigError{Server: p.name, Option: "app URI", Err: fmt.Errorf("%q is not a ui:// URI", uri)}
	}
	res, err := p.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	app, ui, err := appContent(res, uri)
	if err == nil && ui == nil {
		ui = p.listedUI(ctx, uri)
	}
	if err == nil {
		err = app.decodeMeta(ui)
	}
	if err != nil {
		return nil, &ProtocolError{Server: p.name, Op: op.String(), Err: err}
	}
	return app, nil
}

// appContent finds the app's HTML in res: the content of uri, or the only
// content. It returns the content's _meta.ui too, nil if it has none.
func appContent(res *mcp.ReadResourceResult, uri string) (*AppResource, any, error) {
	var c *mcp.ResourceContents
	for _, rc := range res.Contents {
		if rc != nil && rc.URI == uri {
			c = rc
			break
		}
	}
	if c == nil && len(res.Contents) == 1 {
		c = res.Contents[0]
	}
	if c == nil {
		return nil, nil, fmt.Errorf("no content for %s among %d", uri, len(res.Contents))
	}
	mt, params, err := mime.ParseMediaType(c.MIMEType)
	if err != nil || mt != "text/html" || params["profile"] != "mcp-app" {
		return nil, nil, fmt.Errorf("mimeType %q: an MCP App's HTML is %s", c.MIMEType, AppMIMEType)
	}
	html := c.Text
	if c.Blob != nil {
		html = string(c.Blob)
	}
	if html == "" || !utf8.ValidString(html) {
		return nil, nil, errors.New("the HTML is empty or not UTF-8")
	}
	return &AppResource{URI: uri, HTML: html}, c.Meta["ui"], nil
}

// listedUI returns the _meta.ui of the resource's entry in resources/list,
// nil if it has none or the listing fails.
func (p *Provider) listedUI(ctx context.Context, uri string) any {
	op := operation{method: "resources/list"}
	s, err := p.conn.live(op)
	if err != nil {
		return nil
	}
	var ui any
	err = p.request(ctx, s, op, p.cfg.requestTimeout(), func(ctx context.Context, _ func()) error {
		return listPages(p, op.method, func(cursor string) ([]*mcp.Resource, string, error) {
			res, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return res.Resources, res.NextCursor, nil
		}, func(r *mcp.Resource) bool {
			if r.URI != uri {
				return true
			}
			ui = r.Meta["ui"]
			return false
		})
	})
	if err != nil {
		p.cfg.logger.DebugContext(ctx, "app's listing not read; its frame gets the defaults", "server", p.name, "uri", uri, "error", err)
	}
	return ui
}

// decodeMeta fills what the app asks of its frame from ui, a _meta.ui
// object (McpUiResourceMeta), nil for none.
func (a *AppResource) decodeMeta(ui any) error {
	if ui == nil {
		return nil
	}
	data, err := json.Marshal(ui)
	if err != nil {
		return err
	}
	var m struct {
		CSP           AppCSP                     `json:"csp"`
		Permissions   map[string]json.RawMessage `json:"permissions"`
		Domain        string                     `json:"domain"`
		PrefersBorder *bool                      `json:"prefersBorder"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("_meta.ui: %w", err)
	}
	a.CSP, a.Domain, a.PrefersBorder = m.CSP, m.Domain, m.PrefersBorder
	// A permission is asked for by an object ({}), as the extension writes it.
	granted := func(name string) bool { return isObject(m.Permissions[name]) }
	a.Permissions = AppPermissions{
		Camera:         granted("camera"),
		Microphone:     granted("microphone"),
		Geolocation:    granted("geolocation"),
		ClipboardWrite: granted("clipboardWrite"),
	}
	return nil
}

// forModel reports whether a tool may be offered to a model: its app
// declares no visibility, or one that holds "model". A tool only its app
// may call ("visibility": ["app"]) is kept from the model; a host can
// still call it for the app.
func forModel(a tool.App) bool {
	return a.Visibility == nil || slices.Contains(a.Visibility, "model")
}
