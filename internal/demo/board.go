package demo

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The notes board is the demo's MCP App (the io.modelcontextprotocol/ui
// extension): notes_board names its interface, board.html, and board_refresh
// is a tool the interface calls, kept from the model. The constants are
// written out rather than taken from package mcptool, the host's side;
// TestBoard checks that the host reads them.
const (
	boardURI      = "ui://notes/board.html"
	appMIMEType   = "text/html;profile=mcp-app"
	appVisibility = "app"
)

//go:embed board.html
var boardHTML string

// boardOut is what notes_board and board_refresh return as structured
// content: every note, for the interface to render.
type boardOut struct {
	Notes []note `json:"notes" jsonschema:"every note, oldest first"`
}

func addBoard(s *mcp.Server, st *store) {
	board := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, boardOut, error) {
		notes, err := st.all()
		if err != nil {
			return nil, boardOut{}, err
		}
		text := "no notes yet"
		if len(notes) > 0 {
			text = lines(notes)
		}
		// The text is for a host that renders no app, and for the model.
		return textResult(text), boardOut{Notes: append([]note{}, notes...)}, nil
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "notes_board",
		Title:       "Notes board",
		Description: "Show the notes as a board of cards, in hosts that render MCP Apps; the same notes as lines \"#id title [tags]\" elsewhere.",
		Annotations: readOnly,
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": boardURI}},
	}, board)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "board_refresh",
		Title:       "Refresh the notes board",
		Description: "Every note, for the notes board to render again. Called by the board, not by the model.",
		Annotations: readOnly,
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": boardURI, "visibility": []string{appVisibility}}},
	}, board)
	s.AddResource(&mcp.Resource{
		URI:         boardURI,
		Name:        "notes_board",
		Title:       "Notes board",
		Description: "The interface of notes_board: an HTML page rendering the notes as cards.",
		MIMEType:    appMIMEType,
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI:      req.Params.URI,
			MIMEType: appMIMEType,
			Text:     boardHTML,
			// Self-contained: no origin to declare, no permission to ask.
			Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}},
		}}}, nil
	})
}
