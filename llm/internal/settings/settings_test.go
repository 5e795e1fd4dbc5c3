package settings

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/llm"
)

// vendorError is an SDK's error for an HTTP error status.
type vendorError struct{ status int }

func (e *vendorError) Error() string { return fmt.Sprint("status ", e.status) }

// fakeSDK takes its options as strings that say what they set.
func fakeSDK(required int) SDK[string] {
	return SDK[string]{
		Vendor: "acme", Call: "chat", KeyEnv: []string{"ACME_TEST_KEY"}, RequiredMaxTokens: required,
		WithBaseURL:    func(s string) string { return "base " + s },
		WithAPIKey:     func(s string) string { return "key " + s },
		WithHTTPClient: func(*http.Client) string { return "client" },
		WithMaxRetries: func(n int) string { return fmt.Sprint("retries ", n) },
		APIError: APIErrorOf(func(e *vendorError) llm.APIError {
			return llm.APIError{StatusCode: e.status, Message: "slow down, configured-secret and env-secret-value"}
		}),
	}
}

// The SDK gets an option for each setting that is set, the request options
// last.
func TestClientOptions(t *testing.T) {
	m, err := New(fakeSDK(0), "m", Config[string]{RequestOptions: []string{"header"}, MaxRetries: 3, HTTPClient: &http.Client{}, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.ClientOptions(), []string{"key k", "client", "retries 3", "header"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ClientOptions() = %q, want %q", got, want)
	}
}

// Zero means the next default in line; a negative limit means none, which an
// API that requires a limit refuses.
func TestMaxTokens(t *testing.T) {
	for _, tc := range []struct{ required, model, req, want int }{
		{0, 0, 0, 0}, {0, 100, 0, 100}, {0, 100, 50, 50}, {0, 100, -1, 0}, {0, -1, 0, 0},
		{4096, 0, 0, 4096}, {4096, 100, 0, 100}, {4096, 100, 50, 50}, {4096, 100, -1, -1},
	} {
		m, err := New(fakeSDK(tc.required), "m", Config[string]{MaxTokens: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.MaxTokens(tc.req)
		if tc.want < 0 && err == nil || tc.want >= 0 && (got != tc.want || err != nil) {
			t.Errorf("required %d, model %d: MaxTokens(%d) = %d, %v; want %d (-1: an error)", tc.required, tc.model, tc.req, got, err, tc.want)
		}
	}
	if _, err := New(fakeSDK(0), "m", Config[string]{MaxTokens: -1}); err != nil {
		t.Errorf("New refused no limit where the API takes none: %v", err)
	}
}

// Keys are scrubbed from an API error, the configured one and the ones the
// SDK reads from the environment.
func TestErr(t *testing.T) {
	t.Setenv("ACME_TEST_KEY", "env-secret-value")
	m, err := New(fakeSDK(0), "m", Config[string]{APIKey: "configured-secret"})
	if err != nil {
		t.Fatal(err)
	}
	cause := &vendorError{429}
	var apiErr *llm.APIError
	if err := m.Err(fmt.Errorf("sdk: %w", cause)); !errors.As(err, &apiErr) || !errors.Is(err, cause) {
		t.Fatalf("Err(vendor error) = %v, want an APIError wrapping it", err)
	}
	if apiErr.Vendor != "acme" || apiErr.StatusCode != 429 || apiErr.Message != "slow down, *** and ***" {
		t.Errorf("APIError = %+v", apiErr)
	}
	other := errors.New("connection refused")
	if err := m.Err(other); !errors.Is(err, other) || errors.As(err, &apiErr) || err.Error() != `acme: chat with "m": connection refused` {
		t.Errorf("Err(other) = %v", err)
	}
	// net/http quotes the request URL, which may hold a key.
	var ue *url.Error
	refused := &url.Error{Op: "Post", URL: "https://h.example/k/configured-secret/v1/chat?key=abc", Err: other}
	if err := m.Err(refused); !errors.As(err, &ue) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "abc") {
		t.Errorf("Err(url error) = %v; want the URL's secret parts out of its text", err)
	}
}
