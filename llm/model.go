package llm

import (
	"context"

	"github.com/mcpbridge/mcpbridge/tool"
)

// A Model is a chat model that can call tools. Implementations are safe for
// concurrent use: each Generate is one independent request.
//
// Generate sends the whole conversation every time; a Model keeps no state
// between calls. It returns an error only when there is no answer to read (the
// request could not be built or sent, or the API answered with an HTTP error,
// as an [*APIError]); a refusal or a token limit is a [Response] with the
// matching [StopReason].
type Model interface {
	Generate(ctx context.Context, req Request) (*Response, error)
	// Vision reports whether the model reads images. When it does not, the
	// Model sends each image as "[image]" text, so a host may pass
	// images either way; a host that knows may also spare the tokens.
	Vision() bool
}

// A ToolDeferrer is a [Model] that may defer tools ([Request.Deferred]):
// its vendor keeps their definitions out of the model's context until a
// tool result references them, as Anthropic's tool search does
// (defer_loading, tool_reference) and OpenAI's client-executed tool search
// (tool_search_output). Package agent then lets find_tools load what it
// finds, with no load_tools step. DefersTools reports whether this
// model does (a model too old for it would refuse the request).
type ToolDeferrer interface {
	Model
	DefersTools() bool
}

// A Request is one call to a [Model].
type Request struct {
	// System is the system prompt, sent apart from the messages.
	System string
	// Messages is the conversation so far, oldest first.
	Messages []Message
	// Tools are the tools the model may call. Their input schemas are sent as
	// they are; lowering a schema for a vendor is the caller's business.
	Tools []tool.Definition
	// Deferred are tools the vendor keeps out of the model's context until
	// a tool result references them ([Message.References]); the model may
	// call them from then on. Only a Model that defers tools
	// ([ToolDeferrer]) takes them: another refuses the request. The first
	// of Tools is then the tool whose results reference them (package
	// agent's find_tools): a vendor whose search is a call of its own kind
	// (OpenAI's tool_search) sends that tool as its search.
	Deferred []tool.Definition
	// MaxTokens caps the answer's length. Zero means the Model's default; a
	// negative number means no limit, which a Model whose API requires one
	// (Anthropic) refuses with an error naming the setting.
	MaxTokens int
	// Temperature, if set, is the sampling temperature; nil leaves it to the
	// vendor (some models take no other value than their default).
	Temperature *float64
	// OnText, if set, is called with each piece of the answer's text as it
	// arrives, in order, on the goroutine of Generate, so that a host can
	// show the answer as it is written; the Response still holds the whole
	// message. The vendor packages then stream the request. A Model that
	// does not stream may not call it: the Response is the text either way.
	OnText func(delta string)
}

// A Response is the model's answer to one [Request].
type Response struct {
	// Message is the assistant's message: text and tool calls. Append it to
	// the conversation as it is.
	Message Message
	// Usage counts the tokens of this request.
	Usage Usage
	// StopReason says why the model stopped.
	StopReason StopReason
	// VendorStopReason is the reason as the vendor said it ("stop",
	// "end_turn", "pause_turn", ...), for what StopReason does not tell.
	VendorStopReason string
}

// Usage counts the tokens of one request, in the same terms for every
// vendor.
type Usage struct {
	// InputTokens is every token of the prompt, cached or not.
	InputTokens int
	// OutputTokens is the tokens the model wrote.
	OutputTokens int
	// CachedInputTokens is the part of InputTokens read from the vendor's
	// prompt cache (billed lower).
	CachedInputTokens int
	// CacheWriteInputTokens is the part of InputTokens written to the prompt
	// cache, for vendors that count it apart (Anthropic; billed higher).
	CacheWriteInputTokens int
}

// A StopReason says why a model stopped writing.
type StopReason string

const (
	// StopEndTurn: the model finished its answer (or hit a stop sequence).
	StopEndTurn StopReason = "end_turn"
	// StopToolUse: the model wants its tool calls run.
	StopToolUse StopReason = "tool_use"
	// StopMaxTokens: the answer was cut at the token limit (or the context
	// window is full); its text may be incomplete and its tool calls missing.
	StopMaxTokens StopReason = "max_tokens"
	// StopRefusal: the model, or the vendor's content filter, declined to
	// answer. The message's text, if any, says why.
	StopRefusal StopReason = "refusal"
	// StopOther: any other reason; see [Response.VendorStopReason].
	StopOther StopReason = "other"
)
