package openai

import (
	"context"
	"errors"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/llm/internal/settings"
)

// A Model is one chat model behind the Chat Completions API, or with
// [Options.DeferTools] the Responses API. It implements [llm.Model] and
// [llm.ToolDeferrer], and is safe for concurrent use.
type Model struct {
	s               *settings.Model[option.RequestOption]
	rs              *settings.Model[option.RequestOption] // the Responses API's
	client          oai.Client
	legacyMaxTokens bool
	noStrict        bool
	deferTools      bool
}

var _ llm.ToolDeferrer = (*Model)(nil)

// chatAPI is how this SDK takes the settings every vendor shares. OpenAI
// echoes a rejected key back, masked; the error's message is scrubbed of it.
var chatAPI = settings.SDK[option.RequestOption]{
	Vendor:         "openai",
	Call:           "chat completion",
	KeyEnv:         []string{"OPENAI_API_KEY"},
	WithBaseURL:    option.WithBaseURL,
	WithAPIKey:     option.WithAPIKey,
	WithHTTPClient: func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
	WithMaxRetries: option.WithMaxRetries,
	APIError: settings.APIErrorOf(func(e *oai.Error) llm.APIError {
		return llm.APIError{StatusCode: e.StatusCode, Type: e.Type, Code: e.Code, Message: e.Message}
	}),
}

// responsesAPI is the Responses API, which only errors tell apart.
var responsesAPI = func() settings.SDK[option.RequestOption] {
	sdk := chatAPI
	sdk.Call = "response"
	return sdk
}()

// New returns the Model named model (such as "gpt-4.1" or, on Ollama,
// "qwen3:8b"); nil opts are the defaults. It checks the options but sends
// nothing: a wrong key or an unreachable server shows in the first
// [Model.Generate].
func New(model string, opts *Options) (*Model, error) {
	if opts == nil {
		opts = &Options{}
	}
	s, err := settings.New(chatAPI, model, opts.settings())
	if err != nil {
		return nil, err
	}
	rs, err := settings.New(responsesAPI, model, opts.settings())
	if err != nil {
		return nil, err
	}
	return &Model{s: s, rs: rs, client: oai.NewClient(s.ClientOptions()...),
		legacyMaxTokens: opts.LegacyMaxTokens, noStrict: opts.NoStrict, deferTools: opts.DeferTools}, nil
}

// Generate sends the conversation to the Chat Completions endpoint and
// returns the first choice; with [Options.DeferTools], to the Responses
// endpoint. An HTTP error from the API is an [*llm.APIError] with Vendor
// "openai". With [llm.Request.OnText] the answer is streamed (on Chat
// Completions with stream_options.include_usage, so that the usage is
// counted).
func (m *Model) Generate(ctx context.Context, req llm.Request) (*llm.Response, error) {
	if m.deferTools {
		return m.respond(ctx, req)
	}
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	if req.OnText != nil {
		return m.stream(ctx, params, req.OnText)
	}
	completion, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, m.s.Err(err)
	}
	return response(completion)
}

// stream sends the request streamed, passing each piece of text of the
// first choice to onText as it arrives, and returns the whole answer.
func (m *Model) stream(ctx context.Context, params oai.ChatCompletionNewParams, onText func(string)) (*llm.Response, error) {
	params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	stream := m.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc oai.ChatCompletionAccumulator
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return nil, errors.New("openai: the streamed answer has a chunk that does not continue it")
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if c.Delta.Content != "" {
				onText(c.Delta.Content)
			}
			if c.Delta.Refusal != "" {
				onText(c.Delta.Refusal)
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, m.s.Err(err)
	}
	return response(&acc.ChatCompletion)
}

// DefersTools reports whether the model takes deferred tools:
// [Options.DeferTools].
func (m *Model) DefersTools() bool { return m.deferTools }

// Vision reports whether the model reads images: not when
// [Options.TextOnly].
func (m *Model) Vision() bool { return m.s.Vision() }

// Name returns the model's name, as given to [New].
func (m *Model) Name() string { return m.s.Name }

// Vendor returns "openai", the API the model is reached through (an
// OpenAI-compatible server's too), as telemetry names it.
func (m *Model) Vendor() string { return chatAPI.Vendor }
