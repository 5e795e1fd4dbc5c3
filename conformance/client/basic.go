package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
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

// withProvider connects a provider to url, with opts added to the defaults
// every scenario shares, runs use on it, and closes it.
func withProvider(ctx context.Context, url string, use func(p *mcpclient.Provider) error, opts ...mcpclient.Option) error {
	p := mcpclient.FromURL(url, append([]mcpclient.Option{
		mcpclient.WithName("conformance"),
		mcpclient.WithTransport(mcpclient.StreamableHTTP),
	}, opts...)...)
	if err := p.Connect(ctx); err != nil {
		return err
	}
	defer p.Close()
	return use(p)
}

// callTool connects with opts and calls the named tool without arguments.
func callTool(ctx context.Context, url, name string, opts ...mcpclient.Option) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		_, err := p.CallToolResult(ctx, name, nil)
		return err
	}, opts...)
}

// connectOnly connects, which makes the handshake (initialize, or
// server/discover for 2026-07-28) and lists the tools, and closes.
// json-schema-ref-no-deref: the listing holds schemas whose $ref names a
// canary URL; the provider compiles them and must never fetch it.
func connectOnly(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(*mcpclient.Provider) error { return nil })
}

func toolsCall(ctx context.Context, url string, _ scenarioContext) error {
	return callOffered(ctx, url, "add_numbers", map[string]any{"a": 5, "b": 3})
}

// sseRetry calls a tool whose answer stream the server cuts after a retry
// hint: go-sdk's streamable transport, under the provider, must reconnect
// with Last-Event-ID after the hinted delay.
func sseRetry(ctx context.Context, url string, _ scenarioContext) error {
	return callOffered(ctx, url, "test_reconnection", nil)
}

// callOffered connects, checks that the named tool is offered, and calls it
// with args.
func callOffered(ctx context.Context, url, name string, args any) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		if err := offers(p, name); err != nil {
			return err
		}
		_, err := p.CallToolResult(ctx, name, args)
		return err
	})
}

// schemaPreservation echoes the focal tool's input schema, as the provider
// offers it to a model, back to the server, which checks that no JSON
// Schema 2020-12 keyword was lost.
func schemaPreservation(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
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
		_, err := p.CallToolResult(ctx, "json_schema_echo", map[string]any{"schema": schema})
		return err
	})
}

// standardHeaders uses each verb once (a tool call, a resource read,
// a prompt get) so the server sees the Mcp-Method and Mcp-Name headers of
// each. Prompts have no method of their own in the provider, so they go
// through Provider.Request.
func standardHeaders(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		if tools := p.Tools(); len(tools) > 0 {
			logCall(ctx, p, tools[0].Name, nil)
		}
		if uri := firstListed(ctx, p, "resources/list", "resources", "uri"); uri != "" {
			if _, err := p.ReadResource(ctx, uri); err != nil {
				log.Printf("resources/read: %v", err)
			}
		}
		if name := firstListed(ctx, p, "prompts/list", "prompts", "name"); name != "" {
			params := map[string]any{"name": name, "arguments": map[string]string{}}
			if _, err := p.Request(ctx, "prompts/get", params); err != nil {
				log.Printf("prompts/get: %v", err)
			}
		}
		return nil
	})
}

// customHeaders makes the calls the scenario's context lists; the tools'
// input schemas, listed at Connect, mark which arguments go out as
// Mcp-Param-* headers too.
func customHeaders(ctx context.Context, url string, sc scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		for _, c := range sc.ToolCalls {
			args := c.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			logCall(ctx, p, c.Name, args)
		}
		return nil
	})
}

// invalidToolHeaders calls every tool the provider offers: a tool whose
// header annotations are invalid must have been left out of the listing,
// so it is never called.
func invalidToolHeaders(ctx context.Context, url string, _ scenarioContext) error {
	return withProvider(ctx, url, func(p *mcpclient.Provider) error {
		for _, d := range p.Tools() {
			logCall(ctx, p, d.Name, map[string]any{"region": "us-west1"})
		}
		return nil
	})
}

// logCall calls a tool for the headers the call sends; the scenario judges
// those, so a failed call is only logged.
func logCall(ctx context.Context, p *mcpclient.Provider, name string, args any) {
	if _, err := p.CallToolResult(ctx, name, args); err != nil {
		log.Printf("tools/call %q: %v", name, err)
	}
}

// offers reports an error unless the provider offers the named tool.
func offers(p *mcpclient.Provider, name string) error {
	for _, n := range p.ToolNames() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("tool %q not offered (have %v)", name, p.ToolNames())
}

// firstListed returns the string member key of the first of the items a
// list method answers with, such as the uri of the first resource, or ""
// when there is none; a failed request is logged.
func firstListed(ctx context.Context, p *mcpclient.Provider, method, items, key string) string {
	raw, err := p.Request(ctx, method, nil)
	var res map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	var list []map[string]json.RawMessage
	if err == nil && res[items] != nil {
		err = json.Unmarshal(res[items], &list)
	}
	if err != nil {
		log.Printf("%s: %v", method, err)
		return ""
	}
	var s string
	if len(list) > 0 {
		json.Unmarshal(list[0][key], &s) // not a string: none
	}
	return s
}
