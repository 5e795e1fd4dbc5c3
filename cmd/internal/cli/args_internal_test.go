package cli

import (
	"errors"
	"strings"
	"testing"
)

// Arguments with nothing in them, or only space, are said to be empty,
// and no text makes callArgs fail other than with a usage error.
func TestCallArgsEmpty(t *testing.T) {
	for _, text := range []string{"", " ", "\n\t ", "\r\n"} {
		_, err := callArgs(text, strings.NewReader(""))
		var usage *usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "no arguments") {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// callArgs takes any text: JSON is passed on as it is, anything else is a
// usage error; nothing panics.
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{``, ` `, `{`, `{"a":1}`, "{\n\"a\":,\n}", `{"title":"x",b:"y"}`, "\xff", `"`, "{\"a\":\"\xff", "\n\n{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		args, err := callArgs(text, strings.NewReader(text))
		var usage *usageError
		switch {
		case err == nil && string(args) != text:
			t.Errorf("%q passed on as %q", text, args)
		case err != nil && !errors.As(err, &usage):
			t.Errorf("%q: %v, not a usage error", text, err)
		}
	})
}
