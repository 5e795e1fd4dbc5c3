package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

func init() {
	register(connectOnly,
		"initialize",
		"request-metadata",
		"json-schema-ref-no-deref",
	)
	register(toolsCall, "tools_call")
	register(sseRetry, "sse-retry")
	register(schemaPreservation, "json-schema-2020-12-preservation")
	register(standardHeaders, "http-standard-headers")
	register(customHeaders, "http-custom-headers")
	register(invalidToolHeaders, "http-invalid-tool-headers")
}

// connect connects a provider to url with opts added to the defaults every
// scenario shares.
func connect(ctx context.Context, url string, opts ...mcptool.Option) (*mcptool.Provider, error) {
	p := mcptool.FromURL(url, append([]mcptool.Option{
		mcptool.WithName("conformance"),
		mcptool.WithTransport(mcptool.StreamableHTTP),
	}, opts...)...)
	if err := p.Connect(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// connectOnly connects, which makes the handshake (initialize, or
// server/discover for 2026-07-28) and lists the tools, and closes.
// json-schema-ref-no-deref: the listing holds schemas whose $ref names a
// canary URL; the provider compiles them and must never fetch it.
func connectOnly(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	return p.Close()
}

func toolsCall(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := offers(p, "add_numbers"); err != nil {
		return err
	}
	_, err = p.CallToolResult(ctx, "add_numbers", map[string]any{"a": 5, "b": 3})
	return err
}

// sseRetry calls a tool whose answer stream the server cuts after a retry
// hint: go-sdk's streamable transport, under the provider, must reconnect
// with Last-Event-ID after the hinted delay.
func sseRetry(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := offers(p, "test_reconnection"); err != nil {
		return err
	}
	_, err = p.CallToolResult(ctx, "test_reconnection", nil)
	return err
}

// schemaPreservation echoes the focal tool's input schema, as the provider
// offers it to a model, back to the server, which checks that no JSON
// Schema 2020-12 keyword was lost.
func schemaPreservation(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	const focal = "json_schema_2020_12_tool"
	var schema json.RawMessage
	for _, d := range p.Tools() {
		if d.Name == focal {
			schema = d.InputSchema
		}
	}
	if schema == nil {
		return fmt.Errorf("tool %q not offered", focal)
	}
	_, err = p.CallToolResult(ctx, "json_schema_echo", map[string]any{"schema": schema})
	return err
}

// standardHeaders uses each verb once (a tool call, a resource read,
// a prompt get) so the server sees the Mcp-Method and Mcp-Name headers of
// each. Prompts have no method of their own in the provider, so they go
// through Provider.Request.
func standardHeaders(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	if tools := p.Tools(); len(tools) > 0 {
		if _, err := p.CallToolResult(ctx, tools[0].Name, nil); err != nil {
			log.Printf("tools/call %q: %v", tools[0].Name, err)
		}
	}
	var resources struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if err := request(ctx, p, "resources/list", nil, &resources); err != nil {
		log.Printf("resources/list: %v", err)
	} else if len(resources.Resources) > 0 {
		if _, err := p.ReadResource(ctx, resources.Resources[0].URI); err != nil {
			log.Printf("resources/read: %v", err)
		}
	}
	var prompts struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	if err := request(ctx, p, "prompts/list", nil, &prompts); err != nil {
		log.Printf("prompts/list: %v", err)
	} else if len(prompts.Prompts) > 0 {
		params := map[string]any{"name": prompts.Prompts[0].Name, "arguments": map[string]string{}}
		if _, err := p.Request(ctx, "prompts/get", params); err != nil {
			log.Printf("prompts/get: %v", err)
		}
	}
	return nil
}

// customHeaders makes the calls the scenario's context lists; the tools'
// input schemas, listed at Connect, mark which arguments go out as
// Mcp-Param-* headers too.
func customHeaders(ctx context.Context, url string, sc scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	for _, c := range sc.ToolCalls {
		args := c.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}")
		}
		if _, err := p.CallToolResult(ctx, c.Name, args); err != nil {
			log.Printf("tools/call %q: %v", c.Name, err)
		}
	}
	return nil
}

// invalidToolHeaders calls every tool the provider offers: a tool whose
// header annotations are invalid must have been left out of the listing,
// so it is never called.
func invalidToolHeaders(ctx context.Context, url string, _ scenarioContext) error {
	p, err := connect(ctx, url)
	if err != nil {
		return err
	}
	defer p.Close()
	for _, d := range p.Tools() {
		if _, err := p.CallToolResult(ctx, d.Name, map[string]any{"region": "us-west1"}); err != nil {
			log.Printf("tools/call %q: %v", d.Name, err)
		}
	}
	return nil
}

// offers reports an error unless the provider offers the named tool.
func offers(p *mcptool.Provider, name string) error {
	for _, n := range p.ToolNames() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("tool %q not offered (have %v)", name, p.ToolNames())
}

// request sends a raw request through the provider and decodes its result
// into out.
func request(ctx context.Context, p *mcptool.Provider, method string, params, out any) error {
	raw, err := p.Request(ctx, method, params)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
