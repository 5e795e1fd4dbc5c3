// Package openai is an [llm.Model] on the OpenAI Chat Completions API, or
// the Responses API for deferred tools, through the official SDK
// ([github.com/openai/openai-go/v3]).
//
// Chat Completions is also what OpenAI-compatible servers speak, so with
// [Options.BaseURL] the same Model drives Ollama (http://localhost:11434/v1),
// vLLM, llama.cpp's server and LM Studio. For such a server, say with
// [Options.TextOnly] whether the model reads no images, and give a key only
// if it wants one: without [Options.APIKey] or OPENAI_API_KEY, no
// Authorization header is sent.
//
// How the conversation maps onto the wire:
//
//   - [llm.Request.System] is the first message, role "system".
//   - A tool definition becomes {"type": "function", "function": {name,
//     description, parameters}}, its input schema passed through byte for
//     byte (keyword order and unknown keywords kept); an empty schema is sent
//     as {"type": "object", "properties": {}}.
//   - An assistant message's tool calls keep their order and IDs; arguments
//     the model left empty are read as {}.
//   - A tool message takes only text, so a tool result becomes one "tool"
//     message holding [tool.Reply.Text] (each image replaced by
//     "[image]"). When the result has images and the model has vision,
//     the images follow, after the run of tool messages of that turn (the API
//     wants them contiguous), in one "user" message: for each such result, a
//     text naming the call, then its images as image_url parts holding data
//     URLs (data:image/png;base64,...).
//   - [llm.Message.IsError] has no wire form here: the tool message's text
//     must say that the call failed (as a [tool.FailedError] message does).
//   - A model without vision gets "[image]" text wherever an image was,
//     in user messages too.
//
// The answer's finish_reason maps onto [llm.StopReason] ("stop" to
// [llm.StopEndTurn], "tool_calls" to [llm.StopToolUse], "length" to
// [llm.StopMaxTokens], "content_filter" and a refusal to [llm.StopRefusal]); a
// server that says "stop" while returning tool calls, as some local servers
// do, still yields [llm.StopToolUse]. Usage counts prompt, completion and
// cached prompt tokens.
//
// A request with [llm.Request.OnText] is streamed: its text goes to OnText
// as it arrives, and the Response is the same as without.
//
// With [Options.DeferTools], for a model with OpenAI's tool search, requests
// go to the Responses API instead, where OpenAI's deferred tools live:
//
//   - [llm.Request.System] is "instructions"; user and assistant text are
//     input messages, tool calls function_call items, tool results
//     function_call_output items, whose output takes images as input_image
//     parts (no separate user message); MaxTokens is max_output_tokens.
//     "store" is false: the whole conversation goes in every request, and
//     the API keeps nothing of it (RequestOptions may say otherwise).
//   - A tool definition is {"type": "function", name, description,
//     parameters, strict}, its schema passed through byte for byte;
//     "strict" is always sent, since the API takes its absence as true.
//   - With deferred tools ([llm.Request.Deferred]), the first of
//     [llm.Request.Tools] is the search: it goes as {"type": "tool_search",
//     "execution": "client"} with its description and schema as
//     parameters, the model's tool_search_call comes back as an
//     [llm.ToolCall] of it, and its result goes back as a
//     tool_search_output holding the definitions (defer_loading) of the
//     deferred tools it references ([llm.Message.References]), which loads
//     them; the result's text has no place there. The deferred tools are
//     not listed in the request: OpenAI shows the model the name and
//     description of every listed tool, which is the context deferring
//     saves. A reference to a tool that is not deferred in the request
//     loads nothing.
//   - The status maps onto [llm.StopReason]: "completed" to
//     [llm.StopEndTurn] or, with calls, [llm.StopToolUse]; incomplete for
//     "max_output_tokens" to [llm.StopMaxTokens], for "content_filter" (and
//     a refusal) to [llm.StopRefusal]; VendorStopReason is the incomplete
//     reason or else the status. A failed response is an error.
//     Reasoning items are not kept: the next request goes without them.
//
// Options: a [Model] is configured by one [Options] value, and zero is the
// default in each field: MaxTokens 0 sends no limit (the server's default),
// MaxRetries 0 keeps the SDK's two retries, a nil HTTPClient the SDK's
// client. A negative number lifts a bound where one may be lifted
// (MaxTokens, [llm.Request.MaxTokens]: no limit), and [New] refuses it where
// not (MaxRetries), naming the field.
package openai
