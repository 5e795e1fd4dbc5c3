package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpbridge/mcpbridge/mcptool"
	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/near"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/llm"
	"github.com/mcpbridge/mcpbridge/schema"
	"golang.org/x/term"
)

// A usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// Usagef returns a mistake in the command line, said as fmt.Sprintf says
// format with args: exit status 2, and a pointer to the command's --help.
func Usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errReported marks an error whose message was already printed.
var errReported = errors.New("reported")

// exitCode maps an error to the exit status the contract promises. The
// model's errors are connection errors too: its API's answer with an error
// status (llm.APIError), or no answer at all (the HTTP client's *url.Error).
func exitCode(err error) int {
	var (
		usage     *usageError
		invalid   *config.InvalidError
		config    *mcptool.ConfigError
		transport *mcptool.TransportError
		protocol  *mcptool.ProtocolError
		api       *llm.APIError
		network   *url.Error
		exit      *exitError
	)
	switch {
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &usage), errors.As(err, &invalid), errors.As(err, &config):
		return exitUsage
	case errors.As(err, &transport), errors.As(err, &protocol), errors.As(err, &api), errors.As(err, &network):
		return exitTransport
	}
	return exitFailed
}

// errorLines is err as the lines that say it, each cleaned of what a
// server or a file may have put in it: a config's problems one a line,
// each with its file, server and key; a server that did not start as its
// startFailure says it, lines after the first indented; else the error on
// one line.
func errorLines(err error) []string {
	var (
		invalid *config.InvalidError
		failed  *startFailure
	)
	if errors.As(err, &failed) {
		return failed.lines()
	}
	if errors.As(err, &invalid) {
		lines := make([]string, len(invalid.Problems))
		for i, p := range invalid.Problems {
			lines[i] = untrusted.Line(p.String())
		}
		return lines
	}
	return []string{untrusted.Line(err.Error())}
}

// An exitError carries an exit status chosen by the command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses flags wherever they stand among the positional arguments,
// and splits off the server command after "--". A command that takes
// takes positional arguments at most is told of a flag it does not have
// after more: a server's command, likely, that was meant to go after
// "--". On an error, pos holds the positional arguments read until then.
func parse(fs *flag.FlagSet, args []string, takes int) (pos, serverCmd []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, serverCmd = args[:i], args[i+1:]
		if len(serverCmd) == 0 {
			return nil, nil, Usagef(`nothing after "--": give the server's command`)
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			if len(pos) > takes && serverCmd == nil {
				return pos, nil, flagError(fs, err, pos[takes], takes > 0)
			}
			return pos, nil, flagError(fs, err, "", false)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, serverCmd, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// Package flag's errors have no type, and name a flag with one dash; these
// are the shapes of its messages that name one.
var (
	flagUndefined = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	flagNoValue   = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
	flagBadValue  = regexp.MustCompile(`(?s)^(invalid (?:boolean )?value ".*" for )(?:flag )?-([^\s:]+)(: .*)$`)
)

// flagError says err, a mistake package flag found in the flags of fs, as
// the help writes flags (see [dashed]), naming for a flag that does not
// exist the one that was likely meant, or, found after server, a word the
// command does not take, where a server's command goes (own: the command
// takes words of its own). A message of another shape is kept as it is.
func flagError(fs *flag.FlagSet, err error, server string, own bool) error {
	msg := err.Error()
	if m := flagUndefined.FindStringSubmatch(msg); m != nil {
		msg = "unknown flag " + dashed(m[1])
		if server != "" {
			return &usageError{msg + "; " + afterDashes(fs.Name(), server, own)}
		}
		var flags []string
		fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
		if near := near.Suggest(m[1], flags); near != "" {
			msg += "; did you mean " + dashed(near) + "?"
		}
	} else if m := flagNoValue.FindStringSubmatch(msg); m != nil {
		msg = "flag " + dashed(m[1]) + " needs a value"
	} else if m := flagBadValue.FindStringSubmatch(msg); m != nil {
		f := fs.Lookup(m[2])
		msg = m[1] + dashed(m[2]) + m[3]
		if _, secret := f.Value.(secretValue); secret {
			msg = "invalid value for " + dashed(m[2]) + m[3]
		}
		if want := valueWanted(f); want != "" && strings.HasSuffix(msg, ": parse error") {
			msg = strings.TrimSuffix(msg, "parse error") + want
		}
	}
	return &usageError{msg}
}

// afterDashes says where a server's command goes, for word, the first that
// the command cmd does not take (own: it takes words of its own first).
func afterDashes(cmd, word string, own bool) string {
	before := ""
	if own {
		before = " ..."
	}
	w := untrusted.Line(word)
	return fmt.Sprintf("if %s starts a server, it goes after --: mcpbridge %s%s -- %s ...", w, cmd, before, w)
}

// valueWanted says what f takes where package flag says only "parse error":
// for a duration or a boolean; "" for another flag.
func valueWanted(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration such as 30s or 1m30s"
	case bool:
		return "want true or false"
	}
	return ""
}

// dashed is the flag name as the help writes it: --name, or -x for a
// one-letter flag.
func dashed(name string) string {
	if utf8.RuneCountInString(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// A secretValue is a flag whose value may hold a key (a header, a
// variable): its errors never quote it.
type secretValue interface{ secret() }

// headers is a repeatable "K: V" flag.
type headers map[string]string

func (headers) secret() {}

func (h headers) String() string { return "" }
func (h headers) Set(v string) error {
	k, val, ok := cutHeader(v)
	if !ok {
		return fmt.Errorf("want 'Name: value', got %q", redactValue(v))
	}
	h[k] = val
	return nil
}

// dirFlag is a flag naming a directory that exists: the directory a
// command saves files in is checked before anything runs, not found
// missing once a tool has run.
type dirFlag string

func (d *dirFlag) String() string { return string(*d) }
func (d *dirFlag) Set(s string) error {
	fi, err := os.Stat(s)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such directory")
	case err != nil:
		return err
	case !fi.IsDir():
		return errors.New("not a directory")
	}
	*d = dirFlag(s)
	return nil
}

// transportFlag is the HTTP transport of --url, under the names a config
// file's "transport" takes for it (toolset reads them alike): "stdio" is
// not one, as --url's server is not started.
type transportFlag config.Transport

func (f *transportFlag) String() string { return string(*f) }
func (f *transportFlag) Set(s string) error {
	switch strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s)) {
	case "http", "streamablehttp":
		*f = transportFlag(config.StreamableHTTP)
	case "sse":
		*f = transportFlag(config.SSE)
	default:
		return errors.New("want streamable_http (or http) or sse")
	}
	return nil
}

// vendorFlag is a schema.Vendor flag.
type vendorFlag schema.Vendor

func (f *vendorFlag) String() string { return string(*f) }
func (f *vendorFlag) Set(s string) error {
	v, err := schema.ParseVendor(s)
	if err != nil {
		return err
	}
	*f = vendorFlag(v)
	return nil
}

// printFlags lists the flags of fs as the usage lines and the docs write
// them: --name VALUE (-x for a one-letter flag), then what it does and its
// default. A usage that states the default itself says it better than the
// flag's zero value, which then means that default (--timeout's 0 is 1m).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  %s", dashed(f.Name))
		if value != "" {
			fmt.Fprintf(w, " %s", value)
		}
		fmt.Fprintf(w, "\n        %s", usage)
		if f.DefValue != "" && f.DefValue != "false" && !strings.Contains(usage, "(default") {
			fmt.Fprintf(w, " (default: %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	// A character device is not enough: /dev/null is one.
	return ok && term.IsTerminal(int(f.Fd()))
}
