// Command npmservers prints the npm packages that the servers of a config
// file run with npx, one a line, each once, in the file's order: what
// deploy/Dockerfile installs into the image at build time, so that a pod
// starts its servers without the npm registry.
//
//	go run ./deploy/npmservers mcp.json
//
// A server counts when its command is npx (by any path) and it is not
// disabled; its package is the argument of each --package (-p), or else
// npx's first argument that is not an option. A package whose spec names a
// variable (${VAR}) cannot be known at build time: it is left out, said on
// stderr. It exits 1 when the file cannot be read.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpbridge/mcpbridge/toolset/config"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: npmservers CONFIG")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "npmservers:", err)
		os.Exit(1)
	}
}

// run prints the packages of the config at path on out, and what it
// leaves out on errs.
func run(path string, out, errs io.Writer) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	var seen []string
	for _, s := range cfg.Servers {
		if s.Disabled || filepath.Base(s.Command) != "npx" {
			continue
		}
		for _, pkg := range npxPackages(s.Args) {
			switch {
			case strings.Contains(pkg, "${"):
				fmt.Fprintf(errs, "npmservers: server %q: package %q names a variable: not installed\n", s.Name, pkg)
			case !slices.Contains(seen, pkg):
				seen = append(seen, pkg)
				fmt.Fprintln(out, pkg)
			}
		}
	}
	return nil
}

// valued are the options of npx (npm exec) that take the next argument as
// their value, unless written --option=value.
var valued = []string{"-c", "--call", "-w", "--workspace", "--registry", "--cache", "--userconfig", "--prefix", "--loglevel", "--node-options"}

// npxPackages returns the packages an npx command line runs: those of its
// --package options, or else its first argument that is not an option.
func npxPackages(args []string) []string {
	var pkgs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if len(pkgs) == 0 && i+1 < len(args) {
				return []string{args[i+1]}
			}
			return pkgs
		case a == "-p" || a == "--package":
			if i+1 < len(args) {
				pkgs = append(pkgs, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "--package="):
			pkgs = append(pkgs, strings.TrimPrefix(a, "--package="))
		case slices.Contains(valued, a):
			i++
		case strings.HasPrefix(a, "-"):
			// A flag, or --option=value.
		case len(pkgs) > 0:
			return pkgs // the command of the packages given
		default:
			return []string{a}
		}
	}
	return pkgs
}
