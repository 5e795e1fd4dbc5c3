package openai

import (
	"net/http"

	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// Options configure a [Model] made by [New]. Zero is the default in every
// field, and nil Options are all defaults.
type Options struct {
	// BaseURL sends requests to an OpenAI-compatible server instead of
	// api.openai.com: the URL up to and including /v1, such as
	// http://localhost:11434/v1 for Ollama. Empty reads OPENAI_BASE_URL, as
	// the SDK does.
	BaseURL string
	// APIKey is the API key. Empty reads OPENAI_API_KEY, as the SDK does;
	// with neither, no Authorization header is sent (a local server needs
	// none). The key goes in the Authorization header only; no error
	// carries it.
	APIKey string
	// HTTPClient sends the requests, for a proxy, a custom transport or a
	// timeout. Nil is the SDK's client.
	HTTPClient *http.Client
	// TextOnly says the model reads no images: images are then sent as
	// "[image]" text, instead of a request the server would reject.
	TextOnly bool
	// MaxTokens is the answer's token limit when a request sets none. Zero,
	// and a negative number, send no limit: the server's default applies.
	MaxTokens int
	// LegacyMaxTokens sends the limit as "max_tokens" instead of
	// "max_completion_tokens". OpenAI deprecated max_tokens (its reasoning
	// models refuse it), but some older OpenAI-compatible servers know only
	// that one.
	LegacyMaxTokens bool
	// NoStrict sends no tool with "strict": true. Otherwise a tool whose
	// definition is Strict (its schema lowered for OpenAI's Structured
	// Outputs, as toolset does with schema.OpenAI) is, so that the model's
	// arguments always match the schema; an OpenAI-compatible server may
	// refuse the field.
	NoStrict bool
	// DeferTools says the model has OpenAI's tool search (gpt-5.4 and
	// later), so that it takes deferred tools ([llm.Request.Deferred]):
	// requests then go to the Responses API (/v1/responses) instead of Chat
	// Completions, the first of [llm.Request.Tools] as a client-executed
	// tool_search, and each tool result that answers it as a
	// tool_search_output holding the definitions it references
	// ([llm.Message.References]). Under progressive disclosure, package
	// agent then hands the catalog this way. Off by default: a model
	// without tool search, or an OpenAI-compatible server without the
	// Responses API, refuses such a request. LegacyMaxTokens does not apply.
	DeferTools bool
	// MaxRetries is how often the SDK retries a failed request (a
	// connection error, 408, 409, 429 or 5xx). Zero is the SDK's default,
	// 2; [New] refuses a negative number. To send each request once, give
	// option.WithMaxRetries(0) in RequestOptions.
	MaxRetries int
	// RequestOptions are SDK options for every request: extra headers (for
	// a gateway such as OpenRouter), an organization or project,
	// middleware. They apply after the fields above, so they may override
	// them.
	RequestOptions []option.RequestOption
}

// settings returns the settings every vendor shares.
func (o *Options) settings() settings.Config[option.RequestOption] {
	return settings.Config[option.RequestOption]{
		BaseURL: o.BaseURL, APIKey: o.APIKey, HTTPClient: o.HTTPClient, NoVision: o.TextOnly,
		MaxTokens: o.MaxTokens, MaxRetries: o.MaxRetries, RequestOptions: o.RequestOptions,
	}
}
