package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// skillsExtension is the Skills extension's identifier. It is written out
// rather than taken from package skills, the host's side, which sits above
// a server in the layers; TestWeeklyReviewSkill checks that the host sees it.
const skillsExtension = "io.modelcontextprotocol/skills"

// weeklyReviewURI is the one skill the demo publishes through the MCP
// Skills extension (skillsExtension): a SKILL.md and one reference file,
// served as resources under skill://.
const weeklyReviewURI = "skill://weekly-review/SKILL.md"

// skillFiles are the skill's files by URI, SKILL.md first in skillOrder.
var (
	skillOrder = []string{weeklyReviewURI, "skill://weekly-review/references/TAGS.md"}
	skillFiles = map[string]string{
		weeklyReviewURI: `---
name: weekly-review
description: Review the week's notes and write a short summary note tagged review.
---

# Weekly review

1. Call list_notes and note_stats to see what there is.
2. Read the notes that look important with get_note.
3. Write a summary of at most five lines with add_note, titled "Weekly review",
   tagged review. Use the tags described in references/TAGS.md.
`,
		"skill://weekly-review/references/TAGS.md": `# Tags

- work: anything for the job
- home: the household
- review: a summary written by the weekly review
`,
	}
)

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	Skills []any `json:"skills"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	Skill any `json:"skill"`
}

// skillEntry is the weekly-review skill's skills/list entry.
func skillEntry() map[string]any {
	var files []any
	for _, uri := range skillOrder {
		sum := sha256.Sum256([]byte(skillFiles[uri]))
		files = append(files, map[string]any{"uri": uri, "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(skillFiles[uri])})
	}
	return map[string]any{
		"uri": weeklyReviewURI,
		"frontmatter": map[string]any{
			"name":        "weekly-review",
			"description": "Review the week's notes and write a short summary note tagged review.",
		},
		"resources": files,
	}
}

func addSkills(s *mcp.Server) {
	mcp.AddReceivingCustomMethod(s, "skills/list", func(_ context.Context, _ *mcp.ServerSession, p *skillsListParams) (*skillsListResult, error) {
		if p.Cursor != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown cursor"}
		}
		return &skillsListResult{Skills: []any{skillEntry()}}, nil
	})
	mcp.AddReceivingCustomMethod(s, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
		if p.URI != weeklyReviewURI {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no skill is served at " + p.URI}
		}
		return &skillsGetResult{Skill: skillEntry()}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "skill://weekly-review/{+path}",
		Name:        "weekly_review_skill",
		Title:       "The weekly-review skill's files",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		text, ok := skillFiles[uri]
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return markdownResult(uri, text), nil
	})
}
