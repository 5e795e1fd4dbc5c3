package openai

import (
	"net/http"

	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// An Option configures a [Model] made by [New].
type Option func(*config)

type config struct {
	settings.Config[option.RequestOption]
	legacyMaxTokens bool
	noStrict        bool
}

// WithBaseURL sends requests to an OpenAI-compatible server instead of
// api.openai.com: the URL up to and including /v1, such as
// http://localhost:11434/v1 for Ollama. Without it, OPENAI_BASE_URL is read,
// as the SDK does.
func WithBaseURL(url string) Option { return func(c *config) { c.BaseURL = url } }

// WithAPIKey sets the API key. Without it, OPENAI_API_KEY is read, as the SDK
// does. The key goes in the Authorization header only; no error carries it.
func WithAPIKey(key string) Option { return func(c *config) { c.APIKey = key } }

// WithHTTPClient sends requests through client, for a proxy, a custom
// transport or a timeout. Nil, the default, is the SDK's client.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.HTTPClient = client } }

// WithVision says whether the model reads images (default true). Set it
// false for a text-only model: images are then sent as [tool.ImageMark] text,
// instead of a request the server would reject.
func WithVision(vision bool) Option { return func(c *config) { c.NoVision = !vision } }

// WithMaxTokens sets the answer's token limit used when a request sets none.
// Zero, the default, and a negative n both send no limit, so that the
// server's default applies.
func WithMaxTokens(n int) Option { return func(c *config) { c.MaxTokens = n } }

// WithLegacyMaxTokens sends the limit as "max_tokens" instead of
// "max_completion_tokens". OpenAI deprecated max_tokens (its reasoning models
// refuse it), but some older OpenAI-compatible servers know only that one.
func WithLegacyMaxTokens(legacy bool) Option {
	return func(c *config) { c.legacyMaxTokens = legacy }
}

// WithStrict says whether a tool whose definition is Strict (its schema
// lowered for OpenAI's Structured Outputs, as toolset does with
// schema.OpenAI) is sent with "strict": true, so that the model's arguments
// always match the schema (default true). Turn it off for an
// OpenAI-compatible server that refuses the field.
func WithStrict(on bool) Option { return func(c *config) { c.noStrict = !on } }

// WithMaxRetries sets how often the SDK retries a failed request (a
// connection error, 408, 409, 429 or 5xx). Zero is the SDK's default, 2; [New]
// refuses a negative n. To send each request once, give the SDK's
// option.WithMaxRetries(0) to [WithRequestOptions].
func WithMaxRetries(n int) Option { return func(c *config) { c.MaxRetries = n } }

// WithRequestOptions passes SDK options on to every request: extra headers
// (for a gateway such as OpenRouter), an organization or project, middleware.
// They are applied after the options above, whatever the order they are given
// in.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.RequestOptions = append(c.RequestOptions, opts...) }
}
