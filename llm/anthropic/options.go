package anthropic

import (
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// DefaultMaxTokens is the answer's token limit when neither the request nor
// [WithMaxTokens] sets one; the API requires a limit.
const DefaultMaxTokens = 4096

// An Option configures a [Model] made by [New].
type Option func(*config)

type config struct {
	baseURL       string
	apiKey        string
	vision        bool
	maxTokens     int
	promptCaching bool
	// sdkOptions are the SDK options the options above set; they go before
	// requestOptions, which may override them.
	sdkOptions     []option.RequestOption
	requestOptions []option.RequestOption
}

// WithBaseURL sends requests to another host than api.anthropic.com (a proxy
// or gateway): the URL before /v1/messages. Without it, ANTHROPIC_BASE_URL is
// read, as the SDK does.
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithAPIKey sets the API key. Without it, the SDK's credential chain applies
// (ANTHROPIC_API_KEY first). No error carries the key.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithHTTPClient sends requests through client, for a proxy, a custom
// transport or a timeout. The default is the SDK's.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) {
		// The SDK refuses a nil client; nil means its default, as documented.
		if client != nil {
			c.sdkOptions = append(c.sdkOptions, option.WithHTTPClient(client))
		}
	}
}

// WithVision says whether the model reads images (default true; every current
// Claude model does). When false, images are sent as [tool.ImageMark] text.
func WithVision(vision bool) Option { return func(c *config) { c.vision = vision } }

// WithMaxTokens sets the answer's token limit used when a request sets none
// (default [DefaultMaxTokens]).
func WithMaxTokens(n int) Option { return func(c *config) { c.maxTokens = n } }

// WithPromptCaching marks the system prompt with cache_control ephemeral, so
// that the API caches the tools and the system prompt as a prefix and later
// requests of a conversation read it at a lower price. A prompt shorter than
// the model's minimum cacheable length is simply not cached.
func WithPromptCaching(on bool) Option { return func(c *config) { c.promptCaching = on } }

// WithMaxRetries sets how many times the SDK retries a failed request (a
// connection error, 408, 409, 429 or 5xx) before returning the error; the
// SDK's default is 2. Zero sends each request once.
func WithMaxRetries(n int) Option {
	return func(c *config) {
		c.sdkOptions = append(c.sdkOptions, option.WithMaxRetries(max(n, 0)))
	}
}

// WithRequestOptions passes SDK options on to every request: extra headers
// (an anthropic-beta flag), middleware. They are applied after the options
// above.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.requestOptions = append(c.requestOptions, opts...) }
}
