// Package form reads the form of an elicitation in form mode: the
// restricted JSON Schema the MCP specification allows a server to ask the
// user to fill in ([Parse]), checks an answer against it ([Form.Check]),
// and reads what a user typed for a field ([Field.Parse]). tool.Elicit
// checks every answer with it; the hosts' own interfaces (the terminal,
// the web page) render a form from it.
package form

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A Form is what a form-mode tool.Elicitation asks for: the fields of the
// restricted JSON Schema the MCP specification allows (client/elicitation,
// "Requested Schema"), a flat object of strings (formats email, uri, date,
// date-time), numbers, integers, booleans, and single- and multi-select
// enums with or without titles, each with an optional default. [Parse]
// makes one from a schema and refuses anything else.
type Form struct {
	// Fields are the properties in the order the schema lists them.
	Fields []Field
}

// A FieldKind is the kind of value a [Field] takes.
type FieldKind string

const (
	// StringField is a string, maybe of a Format.
	StringField FieldKind = "string"
	// NumberField is any JSON number.
	NumberField FieldKind = "number"
	// IntegerField is a whole number.
	IntegerField FieldKind = "integer"
	// BooleanField is true or false.
	BooleanField FieldKind = "boolean"
	// SelectField is one of the field's Choices (a single-select enum).
	SelectField FieldKind = "select"
	// MultiSelectField is a set of the field's Choices (a multi-select
	// enum).
	MultiSelectField FieldKind = "multiselect"
)

// A Field is one property of a [Form]. Its texts come from the server.
type Field struct {
	Name        string
	Title       string
	Description string
	Kind        FieldKind
	Required    bool
	// Format is a [StringField]'s format: "email", "uri", "date",
	// "date-time", or "".
	Format string
	// Choices are the values of a [SelectField] or [MultiSelectField].
	Choices []Choice
	// Default is the value the server proposes, of the type [Field.Parse]
	// returns, or nil.
	Default any
	// The bounds, where the schema sets them: on a string's length in
	// characters, a number's value, and how many choices are picked.
	MinLength, MaxLength *int
	Minimum, Maximum     *float64
	MinItems, MaxItems   *int
}

// A Choice is one value of a [SelectField] or [MultiSelectField], with the
// title to show for it (the value itself when the schema gives none).
type Choice struct {
	Value, Title string
}

// wireField is a property of a requested schema as JSON has it.
type wireField struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"` // the legacy titles
	OneOf       []wireOption    `json:"oneOf"`
	AnyOf       []wireOption    `json:"anyOf"`
	Items       *wireField      `json:"items"`
	Default     json.RawMessage `json:"default"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Properties  json.RawMessage `json:"properties"`
}

type wireOption struct {
	Const *string `json:"const"`
	Title string  `json:"title"`
}

// maxFields bounds a form: a server could otherwise ask the user forever.
const maxFields = 100

// Parse reads a requested schema into a [Form]. A schema outside the
// specification's subset (a nested object, an array that is not an enum,
// an unknown format, a default of the wrong type) is refused with an
// error naming the property; so is one of more than 100 fields.
func Parse(schema json.RawMessage) (*Form, error) {
	var root struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	if root.Type != "" && root.Type != "object" {
		return nil, fmt.Errorf("requested schema: type %q, want object", root.Type)
	}
	names, props, err := orderedObject(root.Properties)
	if err != nil {
		return nil, fmt.Errorf("requested schema: properties: %w", err)
	}
	if len(names) > maxFields {
		return nil, fmt.Errorf("requested schema: %d properties, more than %d", len(names), maxFields)
	}
	f := &Form{}
	for _, name := range names {
		fd, err := parseField(name, props[name])
		if err != nil {
			return nil, fmt.Errorf("requested schema: property %q: %w", name, err)
		}
		fd.Required = slices.Contains(root.Required, name)
		f.Fields = append(f.Fields, fd)
	}
	for _, r := range root.Required {
		if _, ok := props[r]; !ok {
			return nil, fmt.Errorf("requested schema: required property %q is not defined", r)
		}
	}
	return f, nil
}

// orderedObject decodes a JSON object (or nothing) keeping its key order.
func orderedObject(data json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(data) == 0 {
		return nil, m, nil
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token() // {
	var names []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, err
		}
		if name := k.(string); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, m, nil
}

func parseField(name string, data json.RawMessage) (Field, error) {
	var w wireField
	if err := json.Unmarshal(data, &w); err != nil {
		return Field{}, err
	}
	fd := Field{Name: name, Title: w.Title, Description: w.Description,
		MinLength: w.MinLength, MaxLength: w.MaxLength, Minimum: w.Minimum, Maximum: w.Maximum}
	if len(w.Properties) > 0 {
		return Field{}, errors.New("a nested object: a form is flat")
	}
	var err error
	switch w.Type {
	case "string", "":
		fd.Kind = StringField
		if fd.Choices, err = choices(w); err != nil {
			return Field{}, err
		}
		if fd.Choices != nil {
			fd.Kind = SelectField
		} else if w.Type == "" {
			return Field{}, errors.New("no type")
		}
		switch w.Format {
		case "", "email", "uri", "date", "date-time":
			fd.Format = w.Format
		default:
			return Field{}, fmt.Errorf("format %q is not one of email, uri, date, date-time", w.Format)
		}
	case "number", "integer", "boolean":
		fd.Kind = FieldKind(w.Type)
	case "array":
		if w.Items == nil {
			return Field{}, errors.New("an array without items: only an enum may be an array")
		}
		if fd.Choices, err = choices(*w.Items); err != nil || fd.Choices == nil {
			return Field{}, errors.New("an array whose items are not an enum of strings")
		}
		fd.Kind, fd.MinItems, fd.MaxItems = MultiSelectField, w.MinItems, w.MaxItems
	default:
		return Field{}, fmt.Errorf("type %q is not one of string, number, integer, boolean, array", w.Type)
	}
	if len(w.Default) > 0 && string(w.Default) != "null" {
		var v any
		if err := json.Unmarshal(w.Default, &v); err != nil {
			return Field{}, err
		}
		if fd.Default, err = fd.value(v); err != nil {
			return Field{}, fmt.Errorf("default: %w", err)
		}
	}
	return fd, nil
}

// choices reads the values of an enum, with their titles: enum (with the
// legacy enumNames), oneOf or anyOf of const and title. nil: no enum.
func choices(w wireField) ([]Choice, error) {
	var opts []Choice
	switch {
	case w.Enum != nil:
		if w.EnumNames != nil && len(w.EnumNames) != len(w.Enum) {
			return nil, fmt.Errorf("%d enum values but %d enumNames", len(w.Enum), len(w.EnumNames))
		}
		for i, v := range w.Enum {
			title := v
			if w.EnumNames != nil {
				title = w.EnumNames[i]
			}
			opts = append(opts, Choice{Value: v, Title: title})
		}
	case w.OneOf != nil || w.AnyOf != nil:
		for _, o := range append(w.OneOf, w.AnyOf...) {
			if o.Const == nil {
				return nil, errors.New("an option without const")
			}
			opts = append(opts, Choice{Value: *o.Const, Title: cmp.Or(o.Title, *o.Const)})
		}
	default:
		return nil, nil
	}
	if len(opts) == 0 {
		return nil, errors.New("an enum of no values")
	}
	if w.Type != "" && w.Type != "string" {
		return nil, fmt.Errorf("an enum of type %q: enums are of strings", w.Type)
	}
	return opts, nil
}

// Check reports whether content fits the form: every required field is
// there, no field the form lacks is, and each value is of its field's type,
// format, options and bounds. Numbers may be any Go number type or a
// json.Number; a [MultiSelectField]'s a []string or []any of strings. The error
// names the first field at fault.
func (f *Form) Check(content map[string]any) error {
	for name := range content {
		if !slices.ContainsFunc(f.Fields, func(fd Field) bool { return fd.Name == name }) {
			return fmt.Errorf("field %q: not in the form", name)
		}
	}
	for _, fd := range f.Fields {
		v, ok := content[fd.Name]
		if !ok || v == nil {
			if fd.Required {
				return fmt.Errorf("field %q: required", fd.Name)
			}
			continue
		}
		if _, err := fd.value(v); err != nil {
			return fmt.Errorf("field %q: %w", fd.Name, err)
		}
	}
	return nil
}

// Parse reads what a user typed for the field into its value: a string
// for a string or a select, float64 for a number, int64 for an integer,
// bool for a boolean (yes/no, y/n, true/false), []string for a
// multi-select (separated by commas). An option is picked by its value, its title or its number
// counted from 1. The value is checked as [Form.Check] checks it.
func (fd Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch fd.Kind {
	case NumberField, IntegerField:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return fd.value(n)
	case BooleanField:
		switch strings.ToLower(text) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q: answer yes or no", text)
	case SelectField:
		return fd.value(fd.pick(text))
	case MultiSelectField:
		picked := []string{}
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				picked = append(picked, fd.pick(part))
			}
		}
		return fd.value(picked)
	}
	return fd.value(text)
}

// pick returns the value of the option text names, or text.
func (fd Field) pick(text string) string {
	if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(fd.Choices) {
		return fd.Choices[n-1].Value
	}
	for _, o := range fd.Choices {
		if strings.EqualFold(text, o.Title) {
			return o.Value
		}
	}
	return text
}

// value checks v against the field and returns it as Parse does.
func (fd Field) value(v any) (any, error) {
	switch fd.Kind {
	case NumberField, IntegerField:
		n, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("want a number, got %T", v)
		}
		if fd.Minimum != nil && n < *fd.Minimum || fd.Maximum != nil && n > *fd.Maximum {
			return nil, fmt.Errorf("%v is out of range%s", n, bounds(fd.Minimum, fd.Maximum))
		}
		if fd.Kind == NumberField {
			return n, nil
		}
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return nil, fmt.Errorf("%v is not a whole number", n)
		}
		return int64(n), nil
	case BooleanField:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want true or false, got %T", v)
		}
		return b, nil
	case MultiSelectField:
		picked, ok := stringList(v)
		if !ok {
			return nil, fmt.Errorf("want a list of options, got %T", v)
		}
		for _, p := range picked {
			if !fd.offers(p) {
				return nil, fmt.Errorf("%q is not one of the options", p)
			}
		}
		if fd.MinItems != nil && len(picked) < *fd.MinItems || fd.MaxItems != nil && len(picked) > *fd.MaxItems {
			return nil, fmt.Errorf("%d picked%s", len(picked), bounds(intp(fd.MinItems), intp(fd.MaxItems)))
		}
		return picked, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a string, got %T", v)
	}
	if fd.Kind == SelectField && !fd.offers(s) {
		return nil, fmt.Errorf("%q is not one of the options", s)
	}
	n := utf8.RuneCountInString(s)
	if fd.MinLength != nil && n < *fd.MinLength || fd.MaxLength != nil && n > *fd.MaxLength {
		return nil, fmt.Errorf("%d characters%s", n, bounds(intp(fd.MinLength), intp(fd.MaxLength)))
	}
	if err := checkFormat(fd.Format, s); err != nil {
		return nil, err
	}
	return s, nil
}

func (fd Field) offers(v string) bool {
	return slices.ContainsFunc(fd.Choices, func(o Choice) bool { return o.Value == v })
}

func checkFormat(format, s string) error {
	var err error
	switch format {
	case "email":
		_, err = mail.ParseAddress(s)
	case "uri":
		var u *url.URL
		if u, err = url.Parse(s); err == nil && !u.IsAbs() {
			err = errors.New("not absolute")
		}
	case "date":
		_, err = time.Parse(time.DateOnly, s)
	case "date-time":
		_, err = time.Parse(time.RFC3339, s)
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %s", s, format)
	}
	return nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// stringList reads a list of strings from a []string or a []any of strings.
func stringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return l, true
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func intp(n *int) *float64 {
	if n == nil {
		return nil
	}
	f := float64(*n)
	return &f
}

// bounds says a range for an error: " (want 1 to 3)", " (want at least 1)".
func bounds(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return fmt.Sprintf(" (want %v to %v)", *lo, *hi)
	case lo != nil:
		return fmt.Sprintf(" (want at least %v)", *lo)
	case hi != nil:
		return fmt.Sprintf(" (want at most %v)", *hi)
	}
	return ""
}
