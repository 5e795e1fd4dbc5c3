package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/llm"
)

// Key is the API key the tests configure: every [API] should check that it
// is sent, and no error may carry it.
const Key = "sk-test-0123456789abcdef-secret"

// A Vendor is one vendor package, whose option type is O, as the shared
// tests drive it.
type Vendor[O any] struct {
	Name string // as [llm.APIError.Vendor] says it
	API  API
	// New is the package's New; On returns the options that point a model at
	// srv (whose client [Vendor.Model] adds), with [Key], sending each request
	// once.
	New func(model string, opts ...O) (llm.Model, error)
	On  func(srv *Server) []O
	// Done is an answer of the text "Done.".
	Done string
	// NoVision sets the package's Options.TextOnly, HTTPClient its
	// Options.HTTPClient, SDKClient adds the SDK's option.WithHTTPClient to
	// its Options.RequestOptions.
	NoVision              O
	HTTPClient, SDKClient func(*http.Client) O
}

// Model returns v's model "test-model" on srv, with opts after [Vendor.On].
func (v Vendor[O]) Model(t *testing.T, srv *Server, opts ...O) llm.Model {
	t.Helper()
	m, err := v.New("test-model", append(append(v.On(srv), v.HTTPClient(srv.Client())), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// An Exchange is one request to a model, what goes on the wire (Step), and
// what comes back: Want, if set, or the API error WantError, Vendor and Err
// aside.
type Exchange[O any] struct {
	Name      string
	Opts      []O // after [Vendor.On]
	Request   llm.Request
	Step      Step
	Want      *llm.Response
	WantError *llm.APIError
	// Deltas, if set, streams the request: they are the pieces of text
	// llm.Request.OnText must be given, in order.
	Deltas []string
}

// Exchanges runs each exchange as a subtest, on a fake of its own.
func (v Vendor[O]) Exchanges(t *testing.T, xs ...Exchange[O]) {
	for _, x := range xs {
		t.Run(x.Name, func(t *testing.T) {
			srv := Start(t, v.API, x.Step)
			var deltas []string
			if x.Deltas != nil {
				x.Request.OnText = func(d string) { deltas = append(deltas, d) }
			}
			resp, err := v.Model(t, srv, x.Opts...).Generate(context.Background(), x.Request)
			if x.Deltas != nil && !slices.Equal(deltas, x.Deltas) {
				t.Errorf("OnText was given %q, want %q", deltas, x.Deltas)
			}
			if x.WantError != nil {
				v.wantAPIError(t, srv, err, *x.WantError)
			} else if err != nil {
				t.Fatal(err)
			} else if x.Want != nil && !reflect.DeepEqual(resp, x.Want) {
				g, _ := json.Marshal(resp)
				w, _ := json.Marshal(x.Want)
				t.Errorf("response:\n got %s\nwant %s", g, w)
			}
		})
	}
}

// wantAPIError checks that err is want, and that its text carries neither
// the key, even in part, nor the server's URL.
func (v Vendor[O]) wantAPIError(t *testing.T, srv *Server, err error, want llm.APIError) {
	t.Helper()
	var got *llm.APIError
	if !errors.As(err, &got) {
		t.Fatalf("error %T %v is not an *llm.APIError", err, err)
	}
	want.Vendor, want.Err = v.Name, got.Err
	if *got != want {
		t.Errorf("APIError = %+v, want %+v", *got, want)
	}
	for _, leak := range []string{Key, "sk-", "cret", srv.URL} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("error %q carries %q", err, leak)
		}
	}
}

// Promises checks what every vendor package promises alike beyond the wire:
// a canceled context is the caller's error, as it is, not an API error;
// TextOnly makes a model that reads no images; the SDK options of
// RequestOptions apply after the package's own fields;
// a model names itself and its vendor (for telemetry).
func (v Vendor[O]) Promises(t *testing.T) {
	t.Run("names", func(t *testing.T) {
		m, ok := v.Model(t, Start(t, v.API)).(interface {
			Name() string
			Vendor() string
		})
		if !ok || m.Name() != "test-model" || m.Vendor() != v.Name {
			t.Errorf("the model does not say its name test-model and its vendor %s", v.Name)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := v.Model(t, Start(t, v.API)).Generate(ctx, Question())
		var apiErr *llm.APIError
		if !errors.Is(err, context.Canceled) || errors.As(err, &apiErr) {
			t.Errorf("error = %v, want context.Canceled and no APIError", err)
		}
	})
	t.Run("vision", func(t *testing.T) {
		srv := Start(t, v.API)
		if !v.Model(t, srv).Vision() || v.Model(t, srv, v.NoVision).Vision() {
			t.Error("Vision() is not true by default and false with TextOnly")
		}
	})
	// A client that fails every request before it connects.
	unusable := &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) {
		return nil, errors.New("fakeapi: the unusable client was used")
	}}}
	v.Exchanges(t, Exchange[O]{
		Name:    "request options last",
		Opts:    []O{v.SDKClient(http.DefaultClient), v.HTTPClient(unusable)},
		Request: Question(),
		Step:    Step{Answer: v.Done},
	})
}

// Refuses checks that New refuses each of these options, with an error
// holding the text it maps to.
func (v Vendor[O]) Refuses(t *testing.T, refusals map[string]O) {
	for want, o := range refusals {
		if _, err := v.New("test-model", o); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New with the option of %q = %v, want an error holding it", want, err)
		}
	}
	if _, err := v.New(""); err == nil || !strings.Contains(err.Error(), "empty model name") {
		t.Errorf(`New("") = %v, want an error saying the name is empty`, err)
	}
}
