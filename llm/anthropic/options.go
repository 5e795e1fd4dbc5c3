package anthropic

import (
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// defaultMaxTokens is the answer's token limit when neither the request nor
// [Options.MaxTokens] sets one; the API requires a limit.
const defaultMaxTokens = 4096

// Options configure a [Model] made by [New]. Zero is the default in every
// field, and nil Options are all defaults.
type Options struct {
	// BaseURL sends requests to another host than api.anthropic.com (a
	// proxy or gateway): the URL before /v1/messages. Empty reads
	// ANTHROPIC_BASE_URL, as the SDK does.
	BaseURL string
	// APIKey is the API key. Empty leaves it to the SDK's credential chain
	// (ANTHROPIC_API_KEY first). No error carries the key.
	APIKey string
	// HTTPClient sends the requests, for a proxy, a custom transport or a
	// timeout. Nil is the SDK's client.
	HTTPClient *http.Client
	// TextOnly says the model reads no images (every current Claude model
	// does): images are then sent as "[image]" text.
	TextOnly bool
	// MaxTokens is the answer's token limit when a request sets none. Zero
	// is 4096. A negative number, "no limit" where an API allows it, is
	// refused by [New]: this API requires a limit.
	MaxTokens int
	// PromptCaching marks the system prompt with cache_control ephemeral,
	// so that the API caches the tools and the system prompt as a prefix
	// and later requests of a conversation read it at a lower price. A
	// prompt shorter than the model's minimum cacheable length is simply
	// not cached.
	PromptCaching bool
	// DeferTools says the model has Anthropic's tool search (see which
	// models do in Anthropic's documentation), so that it takes deferred tools
	// ([llm.Request.Deferred]): sent with defer_loading, each loaded by a
	// tool_reference in the tool result that names it
	// ([llm.Message.References]). Under progressive disclosure, package
	// agent then hands the catalog this way. Off by default: a model
	// without tool search refuses such a request.
	DeferTools bool
	// MaxRetries is how often the SDK retries a failed request (a
	// connection error, 408, 409, 429 or 5xx). Zero is the SDK's default,
	// 2; [New] refuses a negative number. To send each request once, give
	// option.WithMaxRetries(0) in RequestOptions.
	MaxRetries int
	// RequestOptions are SDK options for every request: extra headers (an
	// anthropic-beta flag), middleware. They apply after the fields above,
	// so they may override them.
	RequestOptions []option.RequestOption
}

// settings returns the settings every vendor shares.
func (o *Options) settings() settings.Config[option.RequestOption] {
	return settings.Config[option.RequestOption]{
		BaseURL: o.BaseURL, APIKey: o.APIKey, HTTPClient: o.HTTPClient, NoVision: o.TextOnly,
		MaxTokens: o.MaxTokens, MaxRetries: o.MaxRetries, RequestOptions: o.RequestOptions,
	}
}
