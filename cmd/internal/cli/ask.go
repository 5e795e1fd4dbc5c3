package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpbridge/mcpbridge/internal/form"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/tool"
)

// An asker asks the user, on the terminal, what a server asks during a
// call: a form, a field at a time, then the whole for review before it
// is sent (the specification's form mode), or consent to open a URL,
// which is shown whole with its host and never fetched. One question at a
// time, whatever the calls. Without a terminal on stdin, or with
// --no-input, it declines each request with a line saying what was asked
// and why it was declined.
type asker struct {
	mu     sync.Mutex
	lines  func() <-chan string
	w      io.Writer
	refuse string // why it cannot ask, or ""
	open   func(ctx context.Context, url string) error
	turn   func() <-chan struct{} // the running turn's Done ([Turn]), or nil
}

// elicit is the asker as a [tool.Elicitor].
func (a *asker) elicit(ctx context.Context, e *tool.Elicitation) (tool.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	who := fmt.Sprintf("server %q", untrusted.Line(e.Server))
	if e.Tool != "" {
		who += fmt.Sprintf(" (tool %q)", untrusted.Line(e.Tool))
	}
	if a.refuse != "" {
		what := "asked for input"
		if e.URL != "" {
			what = "asked you to open " + untrusted.Line(e.URL)
		}
		fmt.Fprintf(a.w, "%s %s: %s — declined: %s\n", who, what, untrusted.Line(e.Message), a.refuse)
		return tool.Answer{Action: "decline"}, nil
	}
	if e.URL != "" {
		return a.url(ctx, who, e)
	}
	return a.form(ctx, who, e)
}

// line reads the user's next line; ok is false at the end of input, when
// ctx is done, or when Ctrl-C cancels the turn the question came in,
// whose next line is the chat's, not this question's.
func (a *asker) line(ctx context.Context, prompt string) (string, bool) {
	var turn <-chan struct{}
	if a.turn != nil {
		turn = a.turn()
	}
	fmt.Fprint(a.w, prompt)
	select {
	case <-ctx.Done():
		fmt.Fprintln(a.w)
		return "", false
	case <-turn:
		fmt.Fprintln(a.w)
		return "", false
	case l, ok := <-a.lines():
		if !ok {
			fmt.Fprintln(a.w)
		}
		return strings.TrimSpace(l), ok
	}
}

// choose asks for one of the actions keys names (their first letters),
// def for an empty answer; "" at the end of input.
func (a *asker) choose(ctx context.Context, prompt, keys string, def byte) byte {
	for {
		l, ok := a.line(ctx, prompt)
		switch {
		case !ok:
			return 0
		case l == "":
			return def
		case strings.IndexByte(keys, byte(unicode.ToLower(rune(l[0])))) >= 0:
			return byte(unicode.ToLower(rune(l[0])))
		}
	}
}

func (a *asker) form(ctx context.Context, who string, e *tool.Elicitation) (tool.Answer, error) {
	fmt.Fprintf(a.w, "%s asks: %s\n", who, untrusted.Text(e.Message))
	switch a.choose(ctx, "Answer? [Y]es, [d]ecline, [c]ancel: ", "ydc", 'y') {
	case 'd':
		return tool.Answer{Action: "decline"}, nil
	case 'y':
	default:
		return tool.Answer{Action: "cancel"}, nil
	}
	fields, err := form.Parse(e.Schema)
	if err != nil {
		return tool.Answer{}, err
	}
	content := map[string]any{}
	for _, f := range fields.Fields {
		content[f.Name] = f.Default
	}
	for {
		for _, f := range fields.Fields {
			v, ok := a.field(ctx, f, content[f.Name])
			if !ok {
				return tool.Answer{Action: "cancel"}, nil
			}
			content[f.Name] = v
		}
		for k, v := range content {
			if v == nil {
				delete(content, k)
			}
		}
		summary, _ := json.Marshal(content)
		switch a.choose(ctx, fmt.Sprintf("Send %s? [Y]es, [e]dit, [d]ecline, [c]ancel: ", untrusted.Line(string(summary))), "yedc", 'y') {
		case 'y':
			return tool.Answer{Action: "accept", Content: content}, nil
		case 'd':
			return tool.Answer{Action: "decline"}, nil
		case 'e':
			continue
		}
		return tool.Answer{Action: "cancel"}, nil
	}
}

// field asks for one field until the answer fits: empty keeps cur (the
// default, or the answer being edited), "-" clears an optional field.
func (a *asker) field(ctx context.Context, f form.Field, cur any) (any, bool) {
	prompt := "  " + untrusted.Line(cmp.Or(f.Title, f.Name))
	if f.Description != "" {
		prompt += ": " + untrusted.Line(f.Description)
	}
	prompt += " (" + takes(f) + ")"
	if cur != nil {
		prompt += " [" + untrusted.Line(shown(f, cur)) + "]"
	}
	for {
		l, ok := a.line(ctx, prompt+": ")
		switch {
		case !ok:
			return nil, false
		case l == "" && cur != nil:
			return cur, true
		case (l == "" || l == "-") && !f.Required:
			return nil, true
		case l == "" || l == "-":
			fmt.Fprintln(a.w, "    required")
			continue
		}
		v, err := f.Parse(l)
		if err == nil {
			return v, true
		}
		fmt.Fprintf(a.w, "    %s\n", untrusted.Line(err.Error()))
	}
}

// shown is a field's value as its prompt shows it: choices by their
// titles, a boolean as yes or no.
func shown(f form.Field, v any) string {
	title := func(value string) string {
		for _, c := range f.Choices {
			if c.Value == value {
				return c.Title
			}
		}
		return value
	}
	switch v := v.(type) {
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case string:
		return title(v)
	case []string:
		titles := make([]string, len(v))
		for i, c := range v {
			titles[i] = title(c)
		}
		return strings.Join(titles, ", ")
	}
	return fmt.Sprint(v)
}

// takes says what a field takes, for its prompt.
func takes(f form.Field) string {
	var what string
	switch f.Kind {
	case form.BooleanField:
		what = "yes or no"
	case form.SelectField, form.MultiSelectField:
		opts := make([]string, len(f.Choices))
		for i, c := range f.Choices {
			opts[i] = fmt.Sprintf("%d %s", i+1, untrusted.Line(c.Title))
		}
		what = "one of " + strings.Join(opts, ", ")
		if f.Kind == form.MultiSelectField {
			what = "any of " + strings.Join(opts, ", ") + "; separate with commas"
		}
	case form.NumberField, form.IntegerField:
		what = string(f.Kind)
		if f.Minimum != nil && f.Maximum != nil {
			what += fmt.Sprintf(" %v to %v", *f.Minimum, *f.Maximum)
		}
	default:
		what = cmp.Or(f.Format, "text")
		if f.Format == "date" {
			what += " YYYY-MM-DD"
		}
	}
	if f.Required {
		what += ", required"
	}
	return what
}

// url shows a URL elicitation: the whole URL, its host apart (a warning
// when it is not plain ASCII, which may imitate another), and asks
// consent before opening it. The page is never fetched here.
func (a *asker) url(ctx context.Context, who string, e *tool.Elicitation) (tool.Answer, error) {
	u, _ := url.Parse(e.URL) // checked by the provider
	fmt.Fprintf(a.w, "%s asks you to open a page: %s\n  %s\n  host: %s\n", who, untrusted.Text(e.Message), untrusted.Line(e.URL), untrusted.Line(u.Hostname()))
	if host := u.Hostname(); strings.Contains(host, "xn--") || strings.IndexFunc(host, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
		fmt.Fprintln(a.w, "  warning: the host is not plain ASCII (punycode or another script): it may imitate a host you know")
	}
	switch a.choose(ctx, "Open it in your browser? [y]es, [N]o, [c]ancel: ", "ync", 'n') {
	case 'y':
		if err := a.open(ctx, e.URL); err != nil {
			fmt.Fprintf(a.w, "  could not open it (%s): open it yourself\n", untrusted.Line(err.Error()))
		}
		return tool.Answer{Action: "accept"}, nil
	case 'n':
		return tool.Answer{Action: "decline"}, nil
	}
	return tool.Answer{Action: "cancel"}, nil
}

// openURL opens u in the user's browser: $BROWSER (its first command) if
// set, else the system's opener.
func openURL(ctx context.Context, u string) error {
	name, args := "xdg-open", []string{u}
	switch {
	case os.Getenv("BROWSER") != "":
		name, _, _ = strings.Cut(os.Getenv("BROWSER"), string(os.PathListSeparator))
	case runtime.GOOS == "darwin":
		name = "open"
	case runtime.GOOS == "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", u}
	}
	return exec.CommandContext(ctx, name, args...).Run()
}

// ReadLines reads r line by line on a goroutine of its own, so that a
// command can stop on Ctrl-C while a read blocks. The goroutine ends at
// the end of input; a read still blocked when the command returns ends
// with the process.
func ReadLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}
