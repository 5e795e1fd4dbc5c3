// Package chat is mcpbridge's chat command ([Command]): a model on the
// servers' tools, through package agent, its tool calls shown in the
// model's order, each result with its call; and its web command ([Web]),
// the same chat on a page in the browser, each tool's MCP App rendered by
// package apphost; and run ([Run]), a script of code mode against the
// tools. It is the one part of the command line that imports the model
// vendors' SDKs (llm/openai, llm/anthropic) and code mode's interpreter
// (package codemode), so only cmd/mcpbridge-chat imports it; mcpbridge runs
// that program for chat, web and run, in its own place (exec) where the
// system allows.
//
// The model comes from the environment: an OpenAI-compatible server when
// OPENAI_API_KEY or OPENAI_BASE_URL is set, else Anthropic with
// ANTHROPIC_API_KEY; with none, the command says what to set (exit status 2).
//
// Typed on a terminal, a turn runs under [cli.Turn]: a first Ctrl-C
// cancels it, its calls cancelled on the wire, and the chat goes on.
//
// With --sampling the same model answers the servers' sampling requests,
// each on its own (the server's system prompt, not chat's); what a server
// asks the user takes its answer from the lines of stdin, as the turns do
// ([cli.Target.Lines]). mcpbridge-chat also runs "mcpbridge call
// --sampling" ([cli.Program], [ChooseModel]).
//
// Options: chat's flags are its configuration; one left out leaves the
// libraries' defaults (their zero values), but --vendor, which defaults to
// the model's vendor, and --model, to gpt-4.1-mini at OpenAI, the one model
// another OPENAI_BASE_URL server lists, or claude-sonnet-4-5.
package chat
