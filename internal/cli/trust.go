package cli

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// A ./mcp.json found in the working directory is not the user's word: it may
// have come with a repository they just cloned, and it runs commands with
// their environment's variables expanded. So it is used only once the user
// has said yes to its content, on a terminal, or named it with --config.
// The answer is remembered per content hash in the user's config directory
// (trustFile): a changed file is asked about again.

// trustFile is where the hashes of the config files the user trusted are
// kept, one "sha256 path" a line; MCPBRIDGE_CONFIG_DIR overrides the
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
// data, may run: it was trusted before, or the user says so now. The error
// says what the file would run and how to use it.
func trustLocal(path string, data []byte, cfg *toolset.Config, s *Streams) error {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	file, err := trustFile()
	if err != nil {
		return fmt.Errorf("checking whether ./%s is trusted: %w", path, err)
	}
	if trusted(file, hash) {
		return nil
	}
	runs := describeServers(cfg)
	if !IsTerminal(s.In) || !IsTerminal(s.Err) {
		return Usagef("./%s was found but not used: it is not known to be yours, and it would run %s. Pass --config %s to use it, or run mcpbridge on a terminal to be asked once", path, runs, path)
	}
	fmt.Fprintf(s.Err, "./%s would run %s.\nRun the servers of this file? The answer is kept for this content of the file. [y/N] ", path, runs)
	answer, _ := bufio.NewReader(s.In).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return Usagef("./%s not used (pass --config %s to use it)", path, path)
	}
	abs, _ := filepath.Abs(path)
	if err := remember(file, hash, abs); err != nil {
		fmt.Fprintf(s.Err, "mcpbridge: could not remember the answer: %v\n", err)
	}
	return nil
}

// describeServers says in one line what a config would start or reach.
func describeServers(cfg *toolset.Config) string {
	var parts []string
	for _, sc := range cfg.Servers {
		if sc.Disabled {
			continue
		}
		what := "the command " + sc.Command
		if sc.URL != "" {
			what = "the URL " + redact.URL(sc.URL)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", untrusted.Line(sc.Name), untrusted.Line(what)))
	}
	if len(parts) == 0 {
		return "no server"
	}
	return strings.Join(parts, ", ")
}

func trusted(file, hash string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		if h, _, _ := strings.Cut(sc.Text(), " "); h == hash {
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
