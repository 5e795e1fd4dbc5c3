package openai

import (
	"context"
	"errors"
	"fmt"
	"os"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/check"
	"github.com/mcpbridge/mcpbridge/llm/internal/redact"
)

// A Model is one chat model behind the Chat Completions API. It implements
// [llm.Model] and is safe for concurrent use.
type Model struct {
	name   string
	client oai.Client
	cfg    config
	// secrets are scrubbed from the vendor's error messages: the keys the
	// SDK may have sent, as they stood when it read them in New.
	secrets []string
}

var _ llm.Model = (*Model)(nil)

// New returns the Model named model (such as "gpt-4.1" or, on Ollama,
// "qwen3:8b"). It checks the options but sends nothing: a wrong key or an
// unreachable server shows in the first [Model.Generate].
func New(model string, opts ...Option) (*Model, error) {
	cfg := config{vision: true}
	for _, o := range opts {
		o(&cfg)
	}
	if err := check.New("openai", model, cfg.maxTokens, cfg.baseURL); err != nil {
		return nil, err
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
		client:  oai.NewClient(ropts...),
		cfg:     cfg,
		secrets: []string{cfg.apiKey, os.Getenv("OPENAI_API_KEY")},
	}, nil
}

// Vision reports whether the model reads images, as set by [WithVision].
func (m *Model) Vision() bool { return m.cfg.vision }

// Name returns the model's name, as given to [New].
func (m *Model) Name() string { return m.name }

// Generate sends the conversation to the Chat Completions endpoint and
// returns the first choice. An HTTP error from the API is an [*llm.APIError]
// with Vendor "openai".
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	completion, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, m.wrapError(err)
	}
	return response(completion)
}

// wrapError turns the SDK's API error into an [llm.APIError], leaving the
// request out and scrubbing the vendor's message of keys (OpenAI echoes a
// rejected key back, masked). Other errors (transport, context) are wrapped
// as they are.
func (m *Model) wrapError(err error) error {
	var apiErr *oai.Error
	if !errors.As(err, &apiErr) {
		return fmt.Errorf("openai: chat completion with %q: %w", m.name, err)
	}
	return &llm.APIError{
		Vendor:     "openai",
		StatusCode: apiErr.StatusCode,
		Type:       redact.Scrub(apiErr.Type, m.secrets...),
		Code:       redact.Scrub(apiErr.Code, m.secrets...),
		Message:    redact.Scrub(apiErr.Message, m.secrets...),
		Err:        apiErr,
	}
}
