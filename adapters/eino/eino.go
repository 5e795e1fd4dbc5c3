package eino

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/cloudwego/eino/components/tool"
	einoschema "github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/mcpbridge/mcpbridge/schema"
	mtool "github.com/mcpbridge/mcpbridge/tool"
)

// Options say how a source's tools are made eino's. Nil or the zero value
// is the defaults.
type Options struct {
	// Vendor is the model vendor whose rules the input schemas are lowered
	// for ([schema.Lower]): the chat model's (schema.OpenAI for an OpenAI or
	// OpenAI-compatible model, schema.Gemini, schema.Anthropic). A tool whose
	// schema cannot be lowered is left out, with a warning naming the tool
	// and the place, rather than fail every request. Empty: the schemas go
	// as the source gives them (a toolset's are lowered already).
	Vendor schema.Vendor
	// TextOnly makes each tool an [tool.InvokableTool], whose result is its
	// text (an image is the word "image"), for a chat model that reads only
	// a message's Content. By default each is an
	// [tool.EnhancedInvokableTool], and images reach the model as images.
	TextOnly bool
	// Logger is told of each tool left out and of each server's mistake
	// mended (instructions cut, a skill left out). Nil means slog.Default().
	Logger *slog.Logger
}

// An Offer is a source's tools as eino takes them, for one run of an
// agent: the tools never change while the run goes on, and a source's
// changes (a server's list_changed) show in the next Offer.
type Offer struct {
	// Tools are the source's tools, then the tools that take up what its
	// servers bring (load_skill, read_skill_file, read_resource): give
	// them to a ToolsNode, or to a ReAct agent's run with react.WithTools.
	Tools []tool.BaseTool
	// System is what the servers bring for the system prompt (their
	// instructions, quoted so that a server's text cannot pass for the
	// host's, and their skills, one line each), or "" when they bring
	// none: put it after the agent's own system prompt.
	System string
}

// Tools takes one Set from src and makes it eino's: each definition an
// eino tool whose ToolInfo carries the name, the description and the input
// schema (lowered for o.Vendor), and whose run calls the Set's handler, so
// that the arguments are checked before anything is sent and the result
// is converted as mcpbridge converts every result.
//
// What a call answers is what the model reads, as package agent has it:
// text and images (or text alone, with o.TextOnly); a tool that failed
// (isError), a call a policy refused, an argument the schema refuses, a
// server lost during the call: each in words that say which. Only what makes
// going on pointless (a tool whose server cannot be reached, a context
// done) is an error, which ends eino's run.
func Tools(ctx context.Context, src mtool.Source, o *Options) (*Offer, error) {
	if o == nil {
		o = &Options{}
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	set, err := src.Offer(ctx)
	if err != nil {
		return nil, fmt.Errorf("eino: offering the tools: %w", err)
	}
	system, own, err := set.Brought(log.Warn)
	if err != nil {
		return nil, fmt.Errorf("eino: the servers' skills and resources: %w", err)
	}
	set = mtool.Join(own, set)
	offer := &Offer{System: system}
	for _, d := range set.Definitions {
		t, err := newTool(d, set.Handler, o.Vendor)
		if err != nil {
			log.Warn("eino: tool left out", "tool", d.Name, "server", d.Origin.Server, "error", err)
			continue
		}
		if o.TextOnly {
			offer.Tools = append(offer.Tools, (*textTool)(t))
		} else {
			offer.Tools = append(offer.Tools, t)
		}
	}
	return offer, nil
}

// mcpTool is one definition, served by its Set's handler.
type mcpTool struct {
	info    *einoschema.ToolInfo
	name    string
	handler mtool.Handler
	lowered schema.Lowered
}

func newTool(d mtool.Definition, h mtool.Handler, v schema.Vendor) (*mcpTool, error) {
	t := &mcpTool{name: d.Name, handler: h}
	in := d.InputSchema
	if v != "" && !d.Strict {
		low, err := schema.Lower(v, in)
		if err != nil {
			return nil, err
		}
		t.lowered, in = low, low.Schema
	}
	if len(in) == 0 {
		in = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(in, &js); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	t.info = &einoschema.ToolInfo{Name: d.Name, Desc: d.Description, ParamsOneOf: einoschema.NewParamsOneOfByJSONSchema(&js)}
	return t, nil
}

// Info returns the tool's name, description and input schema.
func (t *mcpTool) Info(context.Context) (*einoschema.ToolInfo, error) { return t.info, nil }

// InvokableRun runs the call and returns what the model reads: text and
// images, or the words that say why the call did not answer.
func (t *mcpTool) InvokableRun(ctx context.Context, arg *einoschema.ToolArgument, _ ...tool.Option) (*einoschema.ToolResult, error) {
	var args string
	if arg != nil {
		args = arg.Text
	}
	reply, err := t.call(ctx, args)
	if err != nil {
		return nil, err
	}
	res := &einoschema.ToolResult{Parts: make([]einoschema.ToolOutputPart, 0, len(reply.Parts))}
	for _, p := range reply.Parts {
		switch p := p.(type) {
		case mtool.TextPart:
			res.Parts = append(res.Parts, einoschema.ToolOutputPart{Type: einoschema.ToolPartTypeText, Text: p.Text})
		case mtool.ImagePart:
			data := base64.StdEncoding.EncodeToString(p.Data)
			res.Parts = append(res.Parts, einoschema.ToolOutputPart{Type: einoschema.ToolPartTypeImage, Image: &einoschema.ToolOutputImage{
				MessagePartCommon: einoschema.MessagePartCommon{Base64Data: &data, MIMEType: p.MIMEType},
			}})
		}
	}
	return res, nil
}

// textTool is an mcpTool whose result is text alone.
type textTool mcpTool

// Info returns the tool's name, description and input schema.
func (t *textTool) Info(context.Context) (*einoschema.ToolInfo, error) { return t.info, nil }

// InvokableRun runs the call and returns its text, or the words that say
// why the call did not answer.
func (t *textTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	reply, err := (*mcpTool)(t).call(ctx, args)
	if err != nil {
		return "", err
	}
	return reply.Text(), nil
}

// call runs the call through the handler. A failure the model should read
// is a reply; the error is set only when going on is pointless.
func (t *mcpTool) call(ctx context.Context, args string) (mtool.Reply, error) {
	raw := json.RawMessage(args)
	if fixed, err := t.lowered.Arguments(raw); err == nil {
		raw = fixed // else the handler says what is wrong with them
	}
	reply, err := t.handler.Call(ctx, t.name, raw)
	if err == nil {
		return reply, nil
	}
	if ctx.Err() != nil {
		return mtool.Reply{}, fmt.Errorf("eino: tool %q: %w", t.name, context.Cause(ctx))
	}
	text, fatal := mtool.Explain(t.name, err)
	if fatal {
		return mtool.Reply{}, fmt.Errorf("eino: tool %q: %w", t.name, err)
	}
	return mtool.Text(text), nil
}
