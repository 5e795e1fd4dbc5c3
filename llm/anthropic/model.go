package anthropic

import (
	"context"
	"fmt"
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
	deferTools    bool
}

var _ llm.ToolDeferrer = (*Model)(nil)

// messagesAPI is how this SDK takes the settings every vendor shares.
var messagesAPI = settings.SDK[option.RequestOption]{
	Vendor:            "anthropic",
	Call:              "messages",
	KeyEnv:            []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"},
	RequiredMaxTokens: defaultMaxTokens,
	WithBaseURL:       option.WithBaseURL,
	WithAPIKey:        option.WithAPIKey,
	WithHTTPClient:    func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
	WithMaxRetries:    option.WithMaxRetries,
	APIError: settings.APIErrorOf(func(e *sdk.Error) llm.APIError {
		return llm.APIError{StatusCode: e.StatusCode, Type: string(e.Type()), Code: string(e.ErrorCode()), Message: e.Message}
	}),
}

// New returns the Model named model (such as "claude-sonnet-4-5"); nil opts
// are the defaults. It checks the options but sends nothing: a wrong key or
// an unreachable server shows in the first [Model.Generate].
func New(model string, opts *Options) (*Model, error) {
	if opts == nil {
		opts = &Options{}
	}
	s, err := settings.New(messagesAPI, model, opts.settings())
	if err != nil {
		return nil, err
	}
	return &Model{s: s, client: sdk.NewClient(s.ClientOptions()...), promptCaching: opts.PromptCaching, deferTools: opts.DeferTools}, nil
}

// Generate sends the conversation to the Messages endpoint. An HTTP error from
// the API is an [*llm.APIError] with Vendor "anthropic". With
// [llm.Request.OnText] the answer is streamed.
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
	if req.OnText != nil {
		return m.stream(ctx, params, ropts, req.OnText)
	}
	msg, err := m.client.Messages.New(ctx, params, ropts...)
	if err != nil {
		return nil, m.s.Err(err)
	}
	return response(msg), nil
}

// stream sends the request streamed, passing each piece of text to onText
// as it arrives, and returns the whole answer.
func (m *Model) stream(ctx context.Context, params sdk.MessageNewParams, ropts []option.RequestOption, onText func(string)) (*llm.Response, error) {
	stream := m.client.Messages.NewStreaming(ctx, params, ropts...)
	defer stream.Close()
	var msg sdk.Message
	for stream.Next() {
		event := stream.Current()
		if err := msg.Accumulate(event); err != nil {
			return nil, fmt.Errorf("anthropic: the streamed answer: %w", err)
		}
		if event.Type == "content_block_delta" && event.Delta.Type == "text_delta" && event.Delta.Text != "" {
			onText(event.Delta.Text)
		}
	}
	if err := stream.Err(); err != nil {
		return nil, m.s.Err(err)
	}
	return response(&msg), nil
}

// DefersTools reports whether the model takes deferred tools:
// [Options.DeferTools].
func (m *Model) DefersTools() bool { return m.deferTools }

// Vision reports whether the model reads images: not when
// [Options.TextOnly].
func (m *Model) Vision() bool { return m.s.Vision() }

// Name returns the model's name, as given to [New].
func (m *Model) Name() string { return m.s.Name }

// Vendor returns "anthropic", the API the model is reached through, as
// telemetry names it.
func (m *Model) Vendor() string { return messagesAPI.Vendor }
