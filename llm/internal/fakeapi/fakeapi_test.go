package fakeapi

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records failures instead of acting on them,
// and fails the test if FailNow is reached.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.TB.Errorf("Fatalf called, which a Step's checks must not do: "+format, args...)
}

func (r *recorder) FailNow() { r.TB.Error("FailNow called, which a Step's checks must not do") }

// Field and WantJSON run on the fake's handler goroutine, so they must
// report with Errorf and go on rather than call FailNow.
func TestNoFailNow(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(r *recorder) any
	}{
		{"not JSON", func(r *recorder) any { return Field(r, []byte("{"), "a") }},
		{"not an object", func(r *recorder) any { return Field(r, []byte(`[1]`), "a") }},
		{"array too short", func(r *recorder) any { return Field(r, []byte(`{"a":[1]}`), "a", 1) }},
		{"bad want", func(r *recorder) any { WantJSON(r, "x", 1.0, "{"); return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			if got := tc.run(r); got != nil {
				t.Errorf("got %v, want nil", got)
			}
			if len(r.errors) != 1 {
				t.Errorf("errors = %q, want one", r.errors)
			}
		})
	}
}

func TestField(t *testing.T) {
	body := []byte(`{"a":[{"b":"x"},{"b":"y"}]}`)
	if got := Field(t, body, "a", 1, "b"); got != "y" {
		t.Errorf("Field = %v, want y", got)
	}
	WantJSON(t, "a", Field(t, body, "a"), `[{"b":"x"},{"b":"y"}]`)
}
