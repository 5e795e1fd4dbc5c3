package tool

import "strings"

// An App is what a tool's definition says of the user interface that goes
// with it under the MCP Apps extension (io.modelcontextprotocol/ui): the
// tool's _meta.ui. The interface itself is a ui:// resource a host reads
// and renders (mcptool's Provider.ReadApp); this says where it is, and who
// may call the tool.
type App struct {
	// ResourceURI is the ui:// URI of the resource holding the app's HTML,
	// or "" when the tool has no interface of its own.
	ResourceURI string
	// Visibility lists who may call the tool: "model" (the model is offered
	// it), "app" (the tool's app may call it, on the tool's own server), or
	// both. Nil means both, the extension's default; a tool whose list
	// leaves out "model" is kept from the model (package mcptool's offer
	// leaves it out), and one that leaves out "app" from its app.
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
