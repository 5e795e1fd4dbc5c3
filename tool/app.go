package tool

import (
	"slices"
	"strings"
)

// The visibilities an MCP App tool may declare ([App.Visibility]).
const (
	// VisibleToModel lets the model (the agent) be offered the tool and call it.
	VisibleToModel = "model"
	// VisibleToApp lets the tool's app call it, on the tool's own server.
	VisibleToApp = "app"
)

// An App is what a tool's definition says of the user interface that goes
// with it under the MCP Apps extension (io.modelcontextprotocol/ui): the
// tool's _meta.ui. The interface itself is a ui:// resource a host reads
// and renders (mcptool's Provider.ReadApp); this says where it is, and who
// may call the tool.
type App struct {
	// ResourceURI is the ui:// URI of the resource holding the app's HTML,
	// or "" when the tool has no interface of its own.
	ResourceURI string
	// Visibility lists who may call the tool: [VisibleToModel],
	// [VisibleToApp], or both. Nil means both, the extension's default.
	Visibility []string
}

// App returns what d's _meta says of its MCP App: the resource URI of
// _meta.ui.resourceUri, or of the deprecated key _meta["ui/resourceUri"]
// that hosts must still read, and the list of _meta.ui.visibility. A
// resource URI that is not a string beginning with ui:// is not one, as in
// the extension's reference host; a visibility that is not an array is
// absent, and its members that are not strings are left out.
func (d Definition) App() App {
	var a App
	ui, _ := d.Meta["ui"].(map[string]any)
	uri, ok := ui["resourceUri"].(string)
	if !ok {
		uri, _ = d.Meta["ui/resourceUri"].(string)
	}
	if strings.HasPrefix(uri, "ui://") {
		a.ResourceURI = uri
	}
	if list, ok := ui["visibility"].([]any); ok {
		a.Visibility = []string{}
		for _, v := range list {
			if s, ok := v.(string); ok {
				a.Visibility = append(a.Visibility, s)
			}
		}
	}
	return a
}

// HasUI reports whether the tool has an interface for a host to render.
func (a App) HasUI() bool { return a.ResourceURI != "" }

// ForModel reports whether the tool may be offered to a model: it declares
// no visibility, or one that holds [VisibleToModel]. A tool only its app
// may call ("visibility": ["app"]) is kept from the model; a host can
// still call it for the app.
func (a App) ForModel() bool {
	return a.Visibility == nil || slices.Contains(a.Visibility, VisibleToModel)
}
