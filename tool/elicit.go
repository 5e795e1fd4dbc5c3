package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/form"
)

// An Elicitation is a request for input from the user, made while a call
// runs: an MCP server's elicitation/create (package mcptool hands it over),
// or a local tool's own question ([Elicit]). It is in one of two modes,
// as the MCP specification (2025-11-25 and 2026-07-28, client/elicitation)
// has them:
//
//   - Form mode (Schema set): fields to fill in, of the specification's
//     restricted schema. The host shows the fields and returns the user's
//     values, which are checked against the schema before they are sent.
//   - URL mode (URL set): a page, out of the host's reach, where the user
//     does something the server must not pass through the host (a payment, a
//     third party's authorization). The host shows the whole URL and its
//     host, never fetches it, and opens it only with the user's consent;
//     accepting means the user consented, not that the interaction is done.
//
// Every text in it comes from the server: clean it before showing it, and
// say which server asks (Server).
type Elicitation struct {
	// Server is who asks: the MCP server's name as the host knows it, or
	// "" for a local tool.
	Server string
	// Tool is the tool whose call the request came during, when known.
	Tool string
	// Message says why the server asks.
	Message string
	// Schema is what a form-mode request asks for, as the server wrote it
	// (its properties in order): the specification's restricted JSON
	// Schema, a flat object whose properties are strings (formats email,
	// uri, date, date-time), numbers, integers, booleans, and single- and
	// multi-select enums of strings, each with an optional default. A
	// request whose schema is anything else is refused before the host is
	// asked. It is nil in URL mode.
	Schema json.RawMessage
	// URL is the page of a URL-mode request: an absolute http or https
	// URL. It is "" in form mode.
	URL string
}

// An Answer is the user's answer to an [Elicitation].
type Answer struct {
	// Action is the user's choice, in the specification's three-way model:
	// "accept" (the user submitted the form, or consented to open the
	// URL), "decline" (the user explicitly said no) or "cancel" (the user
	// dismissed the request without choosing). [Elicit] refuses any other.
	Action string
	// Content holds, for an accepted form, the value of each field the
	// user filled, by its name: a string for a string or a single
	// select, a number (any Go number type, or json.Number) for a number or
	// an integer, a bool, a []string for a multi-select. It is nil
	// otherwise.
	Content map[string]any
}

// An Elicitor asks the user and returns the answer. An error means the
// user could not be asked at all (the host has no way to ask); a user who
// would rather not answer is an [Answer] with "decline" or "cancel". It
// may be called from several goroutines at once, for concurrent calls.
type Elicitor func(ctx context.Context, e *Elicitation) (Answer, error)

// WithElicitor returns a copy of ctx carrying fn, which a [Handler] given
// it asks when its call needs the user's input: the requests an MCP
// server makes during the call, a local tool's [Elicit]. Package agent
// passes its Config.Elicit so.
func WithElicitor(ctx context.Context, fn Elicitor) context.Context {
	// By its type, which package mcptool reads (ctxkey.Value).
	return ctxkey.With(ctx, fn)
}

// Elicit asks the user through the [Elicitor] ctx carries and checks the
// answer: the action is one of the three, and an accepted form's content
// fits the schema (every required field, no other, each value of its
// field's type, format, options and bounds). It is how a local tool asks,
// and how package mcptool asks for a server; a schema outside the
// specification's subset is refused, naming the property, and without an
// Elicitor it fails saying there is no way to ask the user.
func Elicit(ctx context.Context, e *Elicitation) (Answer, error) {
	ask := ctxkey.Value[Elicitor](ctx)
	if ask == nil {
		return Answer{}, errors.New("elicitation: no way to ask the user (no tool.WithElicitor in the call's context)")
	}
	if (len(e.Schema) == 0) == (e.URL == "") {
		return Answer{}, errors.New("elicitation: give a schema or a URL, one of them")
	}
	var f *form.Form
	if len(e.Schema) > 0 {
		var err error
		if f, err = form.Parse(e.Schema); err != nil {
			return Answer{}, fmt.Errorf("elicitation: %w", err)
		}
	}
	a, err := ask(ctx, e)
	if err != nil {
		return Answer{}, err
	}
	switch a.Action {
	case "accept":
		if f == nil {
			// URL mode: the content is omitted.
			return Answer{Action: "accept"}, nil
		}
		if a.Content == nil {
			a.Content = map[string]any{}
		}
		if err := f.Check(a.Content); err != nil {
			return Answer{}, fmt.Errorf("elicitation: the answer does not fit the form: %w", err)
		}
		return a, nil
	case "decline", "cancel":
		return Answer{Action: a.Action}, nil
	}
	return Answer{}, fmt.Errorf("elicitation: unknown action %q", a.Action)
}
