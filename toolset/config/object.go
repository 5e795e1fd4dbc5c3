package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"time"
)

// An entry is one key and its value, in the order of the text.
type entry struct {
	key   string
	value json.RawMessage
}

// objectEntries returns the members of a JSON object in their order, which
// decoding into a map would lose. The text must be well-formed.
func objectEntries(data []byte) ([]entry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []entry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var e entry
		e.key, _ = tok.(string)
		if err := dec.Decode(&e.value); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// A member is a key an object of the file may hold, and how its value is
// read: read stores it and returns "", or returns what the value should
// have been.
type member struct {
	key  string
	read func(json.RawMessage) string
}

// readObject reads an object's entries into its members, and reports to
// problem, each key under prefix ("auth." for the auth entry): a key set
// twice, a key no member has (with the one it was probably meant to be),
// and a value of the wrong type. A null value is the same as no key.
func readObject(entries []entry, prefix string, problem func(key, format string, args ...any), members []member) {
	known := make([]string, len(members))
	for i, m := range members {
		known[i] = m.key
	}
	seen := map[string]bool{}
	for _, e := range entries {
		key := prefix + e.key
		if seen[e.key] {
			problem(key, "set twice")
			continue
		}
		seen[e.key] = true
		if string(e.value) == "null" {
			continue
		}
		i := slices.IndexFunc(members, func(m member) bool { return m.key == e.key })
		switch {
		case i >= 0:
			if want := members[i].read(e.value); want != "" {
				problem(key, "want %s", want)
			}
		case suggest(e.key, known) != "":
			problem(key, "unknown key; did you mean %q?", suggest(e.key, known))
		default:
			problem(key, "unknown key")
		}
	}
}

// decode reads a value of dst's type into *dst, leaving it unchanged and
// returning want if the value is of another type. The message never quotes
// the value.
func decode[T any](dst *T, want string) func(json.RawMessage) string {
	return func(data json.RawMessage) string {
		var v T
		if json.Unmarshal(data, &v) != nil {
			return want
		}
		*dst = v
		return ""
	}
}

// duration reads a timeout into *dst: a Go duration string, or a number of
// seconds as other clients write it. Its sign is for Validate to judge.
func duration(dst *time.Duration) func(json.RawMessage) string {
	return func(data json.RawMessage) string {
		const want = `a duration such as "30s" or a number of seconds`
		var d time.Duration
		if data[0] == '"' {
			var s string
			if json.Unmarshal(data, &s) != nil {
				return want
			}
			var err error
			if d, err = time.ParseDuration(s); err != nil {
				return want
			}
		} else {
			var secs float64
			if json.Unmarshal(data, &secs) != nil {
				return want
			}
			if math.Abs(secs) >= math.MaxInt64/float64(time.Second) {
				return want + " (this one is too large)"
			}
			d = time.Duration(secs * float64(time.Second))
		}
		*dst = d
		return ""
	}
}
