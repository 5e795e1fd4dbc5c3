// Package llm is the vendor-neutral face of a chat model that calls tools: a
// [Model] takes a [Request] (a system prompt, the conversation so far as
// [Message] values, and the [tool.Definition] values the model may call) and
// returns a [Response] (the assistant's [Message], its [Usage] and why it
// stopped).
//
// The conversation model is the smallest one both the OpenAI Chat Completions
// API and the Anthropic Messages API can carry without loss:
//
//   - a user message holds text and image parts;
//   - an assistant message holds text and [ToolCall] values, in the order the
//     model produced them (parallel calls stay parallel);
//   - a tool message holds the [tool.Reply] of one call, by the call's ID, and
//     whether it is an error.
//
// Content parts are [tool.Part] values ([tool.TextPart], [tool.ImagePart]),
// so a tool's result goes into the conversation as it is. Each vendor package
// ([github.com/mcpbridge/mcpbridge/llm/openai],
// [github.com/mcpbridge/mcpbridge/llm/anthropic]) maps these to its wire
// format, including what its API cannot say directly (images in an OpenAI tool
// result, consecutive Anthropic tool results in one user turn), and turns images
// into "[image]" text for a model whose [Model.Vision] is false.
//
// An API that answers with an HTTP error is reported as an [*APIError] naming
// the vendor and the status, never with the request's credentials. A model that
// refuses, or stops at its token limit, is not an error: the [Response] says so
// in its [StopReason].
//
// The vendor packages' models also say their name and their vendor (Name,
// Vendor: "openai", "anthropic"), which package agent's telemetry reads.
//
// Options: a [Request] is data, and zero in any of its fields means the
// Model's default; a negative MaxTokens means "no limit" where the vendor's
// API allows it and is an error where it does not. The vendor packages
// configure a Model with one Options struct under the same rule.
package llm
