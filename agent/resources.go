package agent

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/names"
	"github.com/mcpbridge/mcpbridge/tool"
)

// readResourceName is the tool an agent offers, when a server of the run
// has resources, for the model to read them: the resource links in tool
// results point there.
const readResourceName = "read_resource"

type readResourceIn struct {
	URI    string `json:"uri" jsonschema:"the resource's URI, as a resource link in a tool's result gives it"`
	Server string `json:"server,omitempty" jsonschema:"the server the resource is on, as the link names it; may be left out when only one server has resources"`
}

// resourceTool returns read_resource over readers, the resources of the
// run's servers by name, or false when there are none. What it reads is
// converted by the server's provider, as a tool's result is, and fitted to
// the model as every result is.
func resourceTool(readers map[string]func(context.Context, string) (tool.Reply, error)) (tool.Set, bool, error) {
	if len(readers) == 0 {
		return tool.Set{}, false, nil
	}
	servers := slices.Sorted(maps.Keys(readers))
	quoted := make([]string, len(servers))
	for i, s := range servers {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	desc := fmt.Sprintf("Read a resource of an MCP server by its URI, such as one a tool's result links to "+
		"([resource link: URI ..., server \"NAME\"]). The servers with resources: %s.", strings.Join(quoted, ", "))
	read, err := tool.Func(readResourceName, desc, func(ctx context.Context, in readResourceIn) (tool.Reply, error) {
		server := in.Server
		if server == "" && len(servers) == 1 {
			server = servers[0]
		}
		fn, ok := readers[server]
		switch {
		case ok:
			return fn(ctx, in.URI)
		case server == "":
			return tool.Reply{}, &tool.RefusedError{Name: readResourceName, Message: "say which server the resource is on: one of " + strings.Join(quoted, ", ")}
		}
		msg := fmt.Sprintf("no server %q has resources; the servers with resources: %s", server, strings.Join(quoted, ", "))
		if near := names.Suggest(server, servers); near != "" {
			msg = fmt.Sprintf("no server %q has resources; did you mean %q?", server, near)
		}
		return tool.Reply{}, &tool.RefusedError{Name: readResourceName, Message: msg}
	})
	if err != nil {
		return tool.Set{}, false, err
	}
	return read, true, nil
}
