// Package fakeapi is a scripted model vendor API on loopback, for the tests
// of the llm vendor packages: the real SDK talks to it over HTTP, each
// request is checked against the next step of the script and answered as
// that step says.
//
// The vendor packages check the same behaviour the same way: each describes
// itself as a [Vendor], sends the conversations of this package, and states
// in a table of [Exchange] values what goes on its wire and what comes back.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
)

// A Step is one scripted exchange.
type Step struct {
	// Want maps fields of the request body to the JSON each must equal.
	Want map[string]string
	// Holds, if set, is text the body must hold byte for byte.
	Holds string
	// Headers, if set, checks the request's headers instead of the API.
	Headers func(t *testing.T, h http.Header)
	// Status is the answer's HTTP status; 0 means 200.
	Status int
	// Answer is the JSON body answered, or with Stream the event stream.
	Answer string
	// Stream answers with Answer as a text/event-stream, for a streamed
	// request.
	Stream bool
}

// An API is what a vendor's endpoint requires of every request.
type API struct {
	// Path is the endpoint; every request must be a POST to it.
	Path string
	// Headers, if set, checks each request's headers (the API key).
	Headers func(t *testing.T, h http.Header)
	// Unexpected is the error body answered to a request beyond the script.
	Unexpected string
}

// A Server serves a script until the test ends, and then fails the test
// unless it served exactly the script's steps.
type Server struct {
	*httptest.Server

	t     *testing.T
	api   API
	steps []Step
	mu    sync.Mutex
	calls int
}

// Start serves steps as api on loopback until t ends.
func Start(t *testing.T, api API, steps ...Step) *Server {
	t.Helper()
	s := &Server{t: t, api: api, steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.Close()
		if s.calls != len(s.steps) {
			t.Errorf("fake served %d requests, script has %d", s.calls, len(s.steps))
		}
	})
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	i := s.calls
	s.calls++
	s.mu.Unlock()
	if i >= len(s.steps) {
		s.t.Errorf("unexpected request %d to %s", i, r.URL.Path)
		http.Error(w, s.api.Unexpected, http.StatusInternalServerError)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != s.api.Path {
		s.t.Errorf("request %s %s, want POST %s", r.Method, r.URL.Path, s.api.Path)
	}
	step := s.steps[i]
	headers := step.Headers
	if headers == nil {
		headers = s.api.Headers
	}
	if headers != nil {
		headers(s.t, r.Header)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading body: %v", err)
	}
	for field, want := range step.Want {
		WantJSON(s.t, field, Field(s.t, body, field), want)
	}
	if !bytes.Contains(body, []byte(step.Holds)) {
		s.t.Errorf("request body does not hold %s:\n%s", step.Holds, body)
	}
	w.Header().Set("Content-Type", "application/json")
	if step.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	status := step.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, step.Answer)
}

// Field decodes a request body and returns the value at path, a list of
// object keys (strings) and array indexes (ints). It reports a failure with
// Errorf and returns nil, never FailNow: it runs in a Step's checks, on the
// server's goroutine, where FailNow must not be called.
func Field(t testing.TB, body []byte, path ...any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("request body is not JSON: %v\n%s", err, body)
		return nil
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			obj, ok := v.(map[string]any)
			if !ok {
				t.Errorf("at %q: not an object in %s", p, body)
				return nil
			}
			v = obj[p]
		case int:
			arr, ok := v.([]any)
			if !ok || p < 0 || p >= len(arr) {
				t.Errorf("at %d: not an array that long in %s", p, body)
				return nil
			}
			v = arr[p]
		}
	}
	return v
}

// WantJSON reports a failure unless got equals the JSON value want. Like
// [Field], it never calls FailNow.
func WantJSON(t testing.TB, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Errorf("bad want JSON for %s: %v", what, err)
		return
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s:\n got %s\nwant %s", what, g, want)
	}
}
