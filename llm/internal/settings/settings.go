// Package settings is what the vendor packages of llm configure alike: the
// settings their Options share ([Config]), how each SDK takes them ([SDK]),
// and the checked result a vendor's Model keeps ([Model]), which also reports
// the SDK's errors as [llm.APIError]. R is the SDK's request option type.
package settings

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/llm"
)

// Config holds the settings every vendor package's Options have; the zero
// value of each field is its default.
type Config[R any] struct {
	BaseURL    string       // "": the SDK's, which reads its environment
	APIKey     string       // "": the SDK's credential chain
	HTTPClient *http.Client // nil: the SDK's
	NoVision   bool
	MaxTokens  int // 0: the vendor's default; negative: none, if the API allows
	MaxRetries int // 0: the SDK's default; negative is refused
	// RequestOptions go to the SDK last, so they may override the rest.
	RequestOptions []R
}

// SDK says how one vendor's SDK takes a [Config] and reports an HTTP error.
type SDK[R any] struct {
	// Vendor and Call (the API call, "messages") name what failed in errors.
	Vendor, Call string
	// KeyEnv names the environment variables the SDK reads a key from; their
	// values are scrubbed from errors too.
	KeyEnv []string
	// RequiredMaxTokens is, when the API requires a token limit, the one sent
	// when no other is set; a negative limit is then an error.
	RequiredMaxTokens int

	WithBaseURL    func(string) R
	WithAPIKey     func(string) R
	WithHTTPClient func(*http.Client) R
	WithMaxRetries func(int) R
	// APIError reads the SDK's error for an HTTP error status, or returns nil
	// for any other error. [APIErrorOf] writes it.
	APIError func(err error) *llm.APIError
}

// APIErrorOf returns an [SDK.APIError] for the SDK's error type E, whose
// status, type, code and message read fills in.
func APIErrorOf[E error](read func(E) llm.APIError) func(error) *llm.APIError {
	return func(err error) *llm.APIError {
		var e E
		if !errors.As(err, &e) {
			return nil
		}
		a := read(e)
		a.Err = e
		return &a
	}
}

// A Model is a vendor model's name and checked settings.
type Model[R any] struct {
	Name string
	cfg  Config[R]
	sdk  SDK[R]
	// secrets are the keys the SDK may send, as they stood in New.
	secrets []string
}

// New checks the settings of the model called name, naming the option at fault.
func New[R any](sdk SDK[R], name string, cfg Config[R]) (*Model[R], error) {
	v := sdk.Vendor
	if name == "" {
		return nil, errors.New(v + ": empty model name")
	}
	if cfg.MaxTokens < 0 && sdk.RequiredMaxTokens > 0 {
		return nil, fmt.Errorf("%s: MaxTokens %d: the API requires a token limit", v, cfg.MaxTokens)
	}
	if cfg.MaxRetries < 0 {
		return nil, fmt.Errorf("%s: MaxRetries %d: negative, and retries are always bounded", v, cfg.MaxRetries)
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%s: BaseURL %q: not an http(s) URL", v, cfg.BaseURL)
		}
	}
	m := &Model[R]{Name: name, cfg: cfg, sdk: sdk, secrets: []string{cfg.APIKey}}
	for _, env := range sdk.KeyEnv {
		m.secrets = append(m.secrets, os.Getenv(env))
	}
	return m, nil
}

// ClientOptions returns the SDK options for the settings set, request options last.
func (m *Model[R]) ClientOptions() []R {
	var out []R
	if m.cfg.BaseURL != "" {
		out = append(out, m.sdk.WithBaseURL(m.cfg.BaseURL))
	}
	if m.cfg.APIKey != "" {
		out = append(out, m.sdk.WithAPIKey(m.cfg.APIKey))
	}
	if m.cfg.HTTPClient != nil {
		out = append(out, m.sdk.WithHTTPClient(m.cfg.HTTPClient))
	}
	if m.cfg.MaxRetries > 0 {
		out = append(out, m.sdk.WithMaxRetries(m.cfg.MaxRetries))
	}
	return append(out, m.cfg.RequestOptions...)
}

// Vision reports whether the model reads images.
func (m *Model[R]) Vision() bool { return !m.cfg.NoVision }

// MaxTokens returns the token limit to send for a request that asks for req:
// the request's, else the model's, else the required default; 0 sends none.
func (m *Model[R]) MaxTokens(req int) (int, error) {
	n := cmp.Or(req, m.cfg.MaxTokens, m.sdk.RequiredMaxTokens)
	if n >= 0 {
		return n, nil
	}
	if m.sdk.RequiredMaxTokens > 0 {
		return 0, fmt.Errorf("%s: max tokens %d: the API requires a token limit", m.sdk.Vendor, n)
	}
	return 0, nil
}

// Err reports an error of the SDK: an HTTP error from the API as an
// [*llm.APIError] scrubbed of keys (not the SDK's own message, which holds
// the request URL and the whole response body); any other error (transport,
// context) wrapped with its text scrubbed: net/http quotes the request URL,
// whose path or query may hold a key (a base URL with one, say).
func (m *Model[R]) Err(err error) error {
	a := m.sdk.APIError(err)
	if a == nil {
		return fmt.Errorf("%s: %s with %q: %w", m.sdk.Vendor, m.sdk.Call, m.Name, &scrubbed{err, m.secrets})
	}
	a.Vendor = m.sdk.Vendor
	a.Type = redact.Scrub(a.Type, m.secrets...)
	a.Code = redact.Scrub(a.Code, m.secrets...)
	a.Message = redact.Scrub(a.Message, m.secrets...)
	return a
}

// scrubbed is an error whose text is shown without keys or URLs' secret
// parts; errors.Is and errors.As see the error itself.
type scrubbed struct {
	err     error
	secrets []string
}

func (e *scrubbed) Error() string { return redact.URLs(redact.Scrub(e.err.Error(), e.secrets...)) }
func (e *scrubbed) Unwrap() error { return e.err }
