package anthropic

import (
	"context"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// A Model is one Claude model behind the Messages API. It implements
// [llm.Model] and is safe for concurrent use.
type Model struct {
	s             *settings.Model[option.RequestOption]
	client        sdk.Client
	promptCaching bool
}

var _ llm.Model = (*Model)(nil)

// messagesAPI is how this SDK takes the settings every vendor shares.
var messagesAPI = settings.SDK[option.RequestOption]{
	Vendor:            "anthropic",
	Call:              "messages",
	KeyEnv:            []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"},
	RequiredMaxTokens: DefaultMaxTokens,
	WithBaseURL:       option.WithBaseURL,
	WithAPIKey:        option.WithAPIKey,
	WithHTTPClient:    func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
	WithMaxRetries:    option.WithMaxRetries,
	APIError: settings.APIErrorOf(func(e *sdk.Error) llm.APIError {
		return llm.APIError{StatusCode: e.StatusCode, Type: string(e.Type()), Code: string(e.ErrorCode()), Message: e.Message}
	}),
}

// New returns the Model named model (such as "claude-sonnet-4-5"). It checks
// the options but sends nothing: a wrong key or an unreachable server shows in
// the first [Model.Generate].
func New(model string, opts ...Option) (*Model, error) {
	cfg := settings.Apply(opts)
	s, err := settings.New(messagesAPI, model, cfg.Config)
	if err != nil {
		return nil, err
	}
	return &Model{s: s, client: sdk.NewClient(s.ClientOptions()...), promptCaching: cfg.promptCaching}, nil
}

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
		return nil, m.s.Err(err)
	}
	return response(msg), nil
}

// Vision reports whether the model reads images, as set by [WithVision].
func (m *Model) Vision() bool { return m.s.Vision() }

// Name returns the model's name, as given to [New].
func (m *Model) Name() string { return m.s.Name }

// Vendor returns "anthropic", the API the model is reached through, as
// telemetry names it.
func (m *Model) Vendor() string { return messagesAPI.Vendor }
