package anthropic

import (
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// DefaultMaxTokens is the answer's token limit when neither the request nor
// [WithMaxTokens] sets one; the API requires a limit.
const DefaultMaxTokens = 4096

// An Option configures a [Model] made by [New].
type Option func(*config)

type config struct {
	settings.Config[option.RequestOption]
	promptCaching bool
}

// WithBaseURL sends requests to another host than api.anthropic.com (a proxy
// or gateway): the URL before /v1/messages. Without it, ANTHROPIC_BASE_URL is
// read, as the SDK does.
func WithBaseURL(url string) Option { return func(c *config) { c.BaseURL = url } }

// WithAPIKey sets the API key. Without it, the SDK's credential chain applies
// (ANTHROPIC_API_KEY first). No error carries the key.
func WithAPIKey(key string) Option { return func(c *config) { c.APIKey = key } }

// WithHTTPClient sends requests through client, for a proxy, a custom
// transport or a timeout. Nil, the default, is the SDK's client.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.HTTPClient = client } }

// WithVision says whether the model reads images (default true; every current
// Claude model does). When false, images are sent as [tool.ImageMark] text.
func WithVision(vision bool) Option { return func(c *config) { c.NoVision = !vision } }

// WithMaxTokens sets the answer's token limit used when a request sets none.
// Zero is [DefaultMaxTokens]. A negative n, "no limit" where an API allows
// it, is refused by [New]: this API requires a limit.
func WithMaxTokens(n int) Option { return func(c *config) { c.MaxTokens = n } }

// WithPromptCaching marks the system prompt with cache_control ephemeral, so
// that the API caches the tools and the system prompt as a prefix and later
// requests of a conversation read it at a lower price. A prompt shorter than
// the model's minimum cacheable length is simply not cached.
func WithPromptCaching(on bool) Option { return func(c *config) { c.promptCaching = on } }

// WithMaxRetries sets how often the SDK retries a failed request (a
// connection error, 408, 409, 429 or 5xx). Zero is the SDK's default, 2; [New]
// refuses a negative n. To send each request once, give the SDK's
// option.WithMaxRetries(0) to [WithRequestOptions].
func WithMaxRetries(n int) Option { return func(c *config) { c.MaxRetries = n } }

// WithRequestOptions passes SDK options on to every request: extra headers
// (an anthropic-beta flag), middleware. They are applied after the options
// above, whatever the order they are given in.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.RequestOptions = append(c.RequestOptions, opts...) }
}
