package genkit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/firebase/genkit/go/ai"

	"github.com/mcpbridge/mcpbridge/schema"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Options say how a source's tools are made Genkit's. Nil or the zero
// value is the defaults.
type Options struct {
	// Vendor is the model vendor whose rules the input schemas are lowered
	// for ([schema.Lower]): schema.Gemini for Google AI and Vertex AI models,
	// schema.OpenAI for OpenAI-compatible ones, schema.Anthropic. A tool
	// whose schema cannot be lowered is left out, with a warning naming the
	// tool and the place, rather than fail every request. Empty: the schemas
	// go as the source gives them (a toolset's are lowered already).
	Vendor schema.Vendor
	// TextOnly gives each result as text alone (an image is the word
	// "image"), for a model that takes no media. By default a result's
	// images go with it as media parts (a multipart tool response).
	TextOnly bool
	// Logger is told of each tool left out and of each server's mistake
	// mended (instructions cut, a skill left out). Nil means slog.Default().
	Logger *slog.Logger
}

// An Offer is a source's tools as Genkit takes them, for one Generate:
// the tools never change while it goes on, and a source's changes (a
// server's list_changed) show in the next Offer.
type Offer struct {
	// Tools are the source's tools, then the tools that take up what its
	// servers bring (load_skill, read_skill_file, read_resource): give them
	// to Generate with ai.WithTools(offer.Tools...). They are dynamic
	// tools, registered with no Genkit instance.
	Tools []ai.ToolRef
	// System is what the servers bring for the system prompt (their
	// instructions, quoted so that a server's text cannot pass for the
	// host's, and their skills, one line each), or "" when they bring
	// none: put it after the app's own, in ai.WithSystem.
	System string
}

// Tools takes one Set from src and makes it Genkit's: each definition a
// multipart tool whose definition carries the name, the description and
// the input schema (lowered for o.Vendor), and whose run calls the Set's
// handler, so that the arguments are checked against the server's own
// schema before anything is sent and the result is converted as mcpbridge
// converts every result.
//
// What a call answers is what the model reads, as package agent has it:
// text, as the tool response's output, and images, as media parts beside
// it; a tool that failed (isError), a call a policy refused, an argument
// the server's schema refuses, a server lost during the call: each in
// words that say which. Only what makes going on pointless (a tool whose
// server cannot be reached, a context done) is an error, which ends
// Generate. Genkit itself checks the arguments against the schema the
// model was given before the tool runs, and ends Generate when they do
// not fit: that check is Genkit's.
func Tools(ctx context.Context, src tool.Source, o *Options) (*Offer, error) {
	if o == nil {
		o = &Options{}
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	set, err := src.Offer(ctx)
	if err != nil {
		return nil, fmt.Errorf("genkit: offering the tools: %w", err)
	}
	system, own, err := set.Brought(log.Warn)
	if err != nil {
		return nil, fmt.Errorf("genkit: the servers' skills and resources: %w", err)
	}
	set = tool.Join(own, set)
	offer := &Offer{System: system}
	for _, d := range set.Definitions {
		t, err := newTool(d, set.Handler, o)
		if err != nil {
			log.Warn("genkit: tool left out", "tool", d.Name, "server", d.Origin.Server, "error", err)
			continue
		}
		offer.Tools = append(offer.Tools, t)
	}
	return offer, nil
}

// mcpTool is one definition, served by its Set's handler.
type mcpTool struct {
	name     string
	handler  tool.Handler
	lowered  schema.Lowered
	textOnly bool
}

func newTool(d tool.Definition, h tool.Handler, o *Options) (ai.Tool, error) {
	t := &mcpTool{name: d.Name, handler: h, textOnly: o.TextOnly}
	in := d.InputSchema
	if o.Vendor != "" && !d.Strict {
		low, err := schema.Lower(o.Vendor, in)
		if err != nil {
			return nil, err
		}
		t.lowered, in = low, low.Schema
	}
	if len(in) == 0 {
		in = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var js map[string]any
	if err := json.Unmarshal(in, &js); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return ai.NewMultipartTool(d.Name, d.Description, t.run, ai.WithInputSchema(js)), nil
}

// run runs the call and returns what the model reads: text and images, or
// the words that say why the call did not answer.
func (t *mcpTool) run(tc *ai.ToolContext, input any) (*ai.MultipartToolResponse, error) {
	ctx := tc.Context
	args, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("genkit: tool %q: the arguments: %w", t.name, err)
	}
	if input == nil {
		args = nil
	}
	if fixed, err := t.lowered.Arguments(args); err == nil {
		args = fixed // else the handler says what is wrong with them
	}
	reply, err := t.handler.Call(ctx, t.name, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("genkit: tool %q: %w", t.name, context.Cause(ctx))
		}
		text, fatal := tool.Explain(t.name, err)
		if fatal {
			return nil, fmt.Errorf("genkit: tool %q: %w", t.name, err)
		}
		return &ai.MultipartToolResponse{Output: text}, nil
	}
	res := &ai.MultipartToolResponse{Output: reply.Text()}
	if t.textOnly {
		return res, nil
	}
	for _, p := range reply.Parts {
		if img, ok := p.(tool.ImagePart); ok {
			res.Content = append(res.Content, ai.NewMediaPart(img.MIMEType, "data:"+img.MIMEType+";base64,"+base64.StdEncoding.EncodeToString(img.Data)))
		}
	}
	return res, nil
}
