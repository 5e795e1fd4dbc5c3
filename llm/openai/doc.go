// Package openai is an [llm.Model] on the OpenAI Chat Completions API, through
// the official SDK ([github.com/openai/openai-go/v3]).
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
// Options: a [Model] is configured by one [Options] value, and zero is the
// default in each field: MaxTokens 0 sends no limit (the server's default),
// MaxRetries 0 keeps the SDK's two retries, a nil HTTPClient the SDK's
// client. A negative number lifts a bound where one may be lifted
// (MaxTokens, [llm.Request.MaxTokens]: no limit), and [New] refuses it where
// not (MaxRetries), naming the field.
package openai
