package cli

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
)

// A ./mcp.json found in the working directory is not the user's word: it may
// have come with a repository they just cloned, and it runs commands with
// their environment's variables expanded. So it is used only once the user
// has said yes to it, on a terminal, or named it with --config. The answer
// is remembered for the file's absolute path and content hash together in
// the user's config directory (trustFile): a changed file is asked about
// again, and so is the same file elsewhere, where a relative command
// (./server.sh) or working directory is another's.

// trustFile is where the config files the user trusted are kept, one
// "sha256 path" a line, both of which must match; MCPBRIDGE_CONFIG_DIR overrides the
// directory, for tests.
func trustFile() (string, error) {
	dir := os.Getenv("MCPBRIDGE_CONFIG_DIR")
	if dir == "" {
		base, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "mcpbridge")
	}
	return filepath.Join(dir, "trusted-configs"), nil
}

// trustLocal decides whether the config found at path, read as cfg from
// data, may run: it was trusted before at this path with this content, or
// the user says so now. The question and the error say what the file would
// run: each server's whole command line and working directory.
func trustLocal(path string, data []byte, s *Streams) error {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("checking whether ./%s is trusted: %w", path, err)
	}
	file, err := trustFile()
	if err != nil {
		return fmt.Errorf("checking whether ./%s is trusted: %w", path, err)
	}
	if trusted(file, hash, abs) {
		return nil
	}
	runs := describeServers(data, filepath.Dir(abs))
	if !IsTerminal(s.In) || !IsTerminal(s.Err) {
		return Usagef("./%s was found but not used: it is not known to be yours, and it would run %s. Pass --config %s to use it, or run mcpbridge on a terminal to be asked once", path, strings.Join(runs, "; "), path)
	}
	fmt.Fprintf(s.Err, "./%s would run:\n", path)
	for _, r := range runs {
		fmt.Fprintf(s.Err, "  %s\n", r)
	}
	fmt.Fprintf(s.Err, "Run the servers of this file? The answer is kept for this file, here, with this content. [y/N] ")
	answer, _ := bufio.NewReader(s.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return Usagef("./%s not used (pass --config %s to use it)", path, path)
	}
	if err := remember(file, hash, abs); err != nil {
		fmt.Fprintf(s.Err, "mcpbridge: could not remember the answer: %v\n", err)
	}
	return nil
}

// describeServers says what a config would start or reach, a server a
// line: a command with every argument, its working directory (dir, the
// file's, unless "cwd" says) and the variables it sets; a URL as scheme
// and host, the headers it sends and how it gets an OAuth token. The file
// is read again with its references (${VAR}) left as written: they are
// what the file says, and their values may be secrets. No value of a
// variable or header is shown, only where it comes from: the user's
// environment, by name, or the file.
func describeServers(data []byte, dir string) []string {
	cfg, err := config.Loader{LookupEnv: func(name string) (string, bool) { return "${" + name + "}", true }}.Parse(data)
	if err != nil {
		return []string{"servers it could not describe"}
	}
	var lines []string
	for _, sc := range cfg.Servers {
		if sc.Disabled {
			continue
		}
		var what string
		if sc.URL != "" {
			what = "the URL " + redact.URL(sc.URL)
			if names := references(sc.URL); names != "" {
				what += " (with " + names + ")"
			}
			if len(sc.Headers) > 0 {
				what += ", sending the headers " + sources(sc.Headers)
			}
			if a := sc.Auth; a != nil {
				what += ", getting an OAuth token (" + cmp.Or(a.Grant, "client_credentials") + ")"
				if names := references(a.ClientSecret + a.IdPClientSecret + a.ClientID + a.IdPClientID); names != "" {
					what += " with " + names
				}
			}
		} else {
			words := []string{shellWord(sc.Command)}
			for _, a := range sc.Args {
				words = append(words, shellWord(a))
			}
			where := sc.Dir
			if where == "" {
				where = dir
			}
			what = strings.Join(words, " ") + ", in " + where
			if len(sc.Env) > 0 {
				what += ", setting " + sources(sc.Env)
			}
		}
		lines = append(lines, untrusted.Line(sc.Name+": "+what))
	}
	if len(lines) == 0 {
		return []string{"no server"}
	}
	return lines
}

// reference is a variable as describeServers' reading leaves it.
var reference = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// references names the variables s is made of, "$A and $B", "" if none.
func references(s string) string {
	var names []string
	for _, m := range reference.FindAllStringSubmatch(s, -1) {
		if !slices.Contains(names, "$"+m[1]) {
			names = append(names, "$"+m[1])
		}
	}
	return strings.Join(names, " and ")
}

// sources names each of m's keys and where its value comes from, never
// the value: "NAME (from $VAR)", or "NAME (a value written in the file)".
func sources(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		from := "a value written in the file"
		if names := references(m[k]); names != "" {
			from = "from " + names
		}
		parts = append(parts, k+" ("+from+")")
	}
	return strings.Join(parts, ", ")
}

// shellWord writes w as a shell would need it to read it as one word:
// quoted when it is empty or holds what a shell splits or expands.
func shellWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
		return w
	}
	return strconv.Quote(w)
}

// trusted reports whether file holds the line of the config at path with
// the content hash.
func trusted(file, hash, path string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		if h, p, _ := strings.Cut(sc.Text(), " "); h == hash && p == path {
			return true
		}
	}
	return false
}

func remember(file, hash, path string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %s\n", hash, path)
	return errors.Join(err, f.Close())
}
