// Package anthropic is an [llm.Model] on the Anthropic Messages API, through
// the official SDK ([github.com/anthropics/anthropic-sdk-go/v2]).
//
// How the conversation maps onto the wire:
//
//   - [llm.Request.System] is the request's "system" field, a prefix the API
//     can cache; [Options.PromptCaching] marks it with cache_control ephemeral,
//     which caches the tool definitions too (they come before it).
//   - A tool definition becomes {name, description, input_schema}, its input
//     schema passed through byte for byte (keyword order and unknown keywords
//     kept); an empty schema is sent as {"type": "object", "properties": {}}.
//   - An assistant message becomes text blocks and tool_use blocks, in that
//     order, each tool_use carrying its call's ID and its arguments as the
//     input object.
//   - Tool results become tool_result blocks (tool_use_id, is_error when the
//     message is flagged, content of text blocks and base64 image blocks with
//     their media_type). Consecutive tool results, and a user message right
//     after them, go in one user message, as the API requires.
//   - A model without vision ([Options.TextOnly]) gets "[image]" text
//     wherever an image was.
//
// max_tokens is required by the API: it is [llm.Request.MaxTokens], else
// [Options.MaxTokens], else 4096; a negative limit ("none") is refused. The
// SDK refuses a non-streaming request whose max_tokens could take more than
// ten minutes (about 21,000 tokens); a request with [llm.Request.OnText] is
// streamed, its text going to OnText as it arrives, and takes any limit.
//
// The answer's stop_reason maps onto [llm.StopReason] ("end_turn" and
// "stop_sequence" to [llm.StopEndTurn], "tool_use" to [llm.StopToolUse],
// "max_tokens" and "model_context_window_exceeded" to [llm.StopMaxTokens],
// "refusal" to [llm.StopRefusal]). Anthropic counts cached input apart from
// input_tokens; [llm.Usage] adds them up, so InputTokens is the whole prompt
// as with OpenAI.
//
// Options: a [Model] is configured by one [Options] value, and zero is the
// default in each field: MaxTokens 0 is 4096, MaxRetries 0 the SDK's two
// retries, a nil HTTPClient the SDK's client. A negative number would lift a
// bound; both bounds here must stay, so [New] refuses it, naming the field.
package anthropic
