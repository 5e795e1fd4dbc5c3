package anthropic

import (
	"context"
	"errors"
	"fmt"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/check"
	"github.com/mcpbridge/mcpbridge/llm/internal/redact"
)

// A Model is one Claude model behind the Messages API. It implements
// [llm.Model] and is safe for concurrent use.
type Model struct {
	name   string
	client sdk.Client
	cfg    config
	// secrets are scrubbed from the vendor's error messages: the keys the
	// SDK may have sent, as they stood when it read them in New.
	secrets []string
}

var _ llm.Model = (*Model)(nil)

// New returns the Model named model (such as "claude-sonnet-4-5"). It checks
// the options but sends nothing: a wrong key or an unreachable server shows in
// the first [Model.Generate].
func New(model string, opts ...Option) (*Model, error) {
	cfg := config{vision: true}
	for _, o := range opts {
		o(&cfg)
	}
	if err := check.New("anthropic", model, cfg.maxTokens, cfg.baseURL); err != nil {
		return nil, err
	}
	if cfg.maxTokens == 0 {
		cfg.maxTokens = DefaultMaxTokens
	}
	var ropts []option.RequestOption
	if cfg.baseURL != "" {
		ropts = append(ropts, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.apiKey != "" {
		ropts = append(ropts, option.WithAPIKey(cfg.apiKey))
	}
	ropts = append(ropts, cfg.sdkOptions...)
	ropts = append(ropts, cfg.requestOptions...)
	return &Model{
		name:    model,
		client:  sdk.NewClient(ropts...),
		cfg:     cfg,
		secrets: []string{cfg.apiKey, os.Getenv("ANTHROPIC_API_KEY"), os.Getenv("ANTHROPIC_AUTH_TOKEN")},
	}, nil
}

// Vision reports whether the model reads images, as set by [WithVision].
func (m *Model) Vision() bool { return m.cfg.vision }

// Name returns the model's name, as given to [New].
func (m *Model) Name() string { return m.name }

// Generate sends the conversation to the Messages endpoint. An HTTP error from
// the API is an [*llm.APIError] with Vendor "anthropic".
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var ropts []option.RequestOption
	if req.Temperature != nil {
		// This SDK version has no temperature field; the API still takes it.
		ropts = append(ropts, option.WithJSONSet("temperature", *req.Temperature))
	}
	msg, err := m.client.Messages.New(ctx, params, ropts...)
	if err != nil {
		return nil, m.wrapError(err)
	}
	return response(msg), nil
}

// wrapError turns the SDK's API error into an [llm.APIError]. The SDK's own
// message is not used: it holds the request URL and the whole response body.
// Other errors (transport, context) are wrapped as they are.
func (m *Model) wrapError(err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("anthropic: messages with %q: %w", m.name, err)
	}
	return &llm.APIError{
		Vendor:     "anthropic",
		StatusCode: apiErr.StatusCode,
		Type:       redact.Scrub(string(apiErr.Type()), m.secrets...),
		Code:       redact.Scrub(string(apiErr.ErrorCode()), m.secrets...),
		Message:    redact.Scrub(apiErr.Message, m.secrets...),
		Err:        apiErr,
	}
}
