package stdio

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"unicode"
)

// ServerName names a server by what its command runs rather than by the
// program that runs it, which is often a launcher every server shares:
//
//   - the package a launcher fetches and runs: npx -y
//     @modelcontextprotocol/server-memory is "server-memory" (also bunx,
//     pnpx, npm exec, pnpm dlx, yarn dlx, uvx, pipx run); a package named
//     only "mcp" or "server" keeps its scope: @playwright/mcp is
//     "playwright-mcp";
//   - the script an interpreter runs, by the last name of its path that
//     says more than "index", "main", "build" or "dist" (or its file name,
//     if none does): node weather/build/index.js is "weather" (also deno,
//     bun, python, uv run, ruby, php, perl, java -jar); python -m pkg is
//     "pkg"; a program given inline (node -e CODE, python -c CODE) is
//     named by its interpreter, "node";
//   - the image a container runs, without its registry or tag: docker run
//     -i --rm mcp/fetch is "fetch" (also podman);
//   - otherwise the command's base name without its extension: server.py
//     is "server".
//
// Flags and their values never go into the name, as they may carry
// secrets; what is taken is cut at its version ("pkg@1.2", "img:tag") and
// keeps only letters, digits, dots, hyphens and underscores.
func ServerName(command string, args []string) string {
	if name := clean(named(command, args)); name != "" {
		return name
	}
	if name := clean(program(command)); name != "" {
		return name
	}
	return "server"
}

// named is the name the command's arguments give, or its program's.
func named(command string, args []string) string {
	prog := strings.ToLower(program(command))
	switch {
	case prog == "cmd" && len(args) > 1 && strings.EqualFold(args[0], "/c"):
		return named(args[1], args[2:])
	case slices.Contains([]string{"npx", "bunx", "pnpx"}, prog):
		return npmPackage(positional(args, npxValued))
	case slices.Contains([]string{"npm", "pnpm", "yarn"}, prog) && len(args) > 0 && (args[0] == "exec" || args[0] == "dlx"),
		prog == "bun" && len(args) > 0 && args[0] == "x":
		return npmPackage(positional(args[1:], npxValued))
	case prog == "uvx", prog == "pipx" && len(args) > 0 && args[0] == "run":
		if prog == "pipx" {
			args = args[1:]
		}
		return pythonPackage(positional(args, uvValued))
	case prog == "uv" && len(args) > 0:
		i := slices.Index(args, "run")
		if i < 0 {
			return prog
		}
		return script(args[i+1:], uvValued)
	case prog == "docker" || prog == "podman":
		if len(args) > 1 && args[0] == "container" {
			args = args[1:]
		}
		if len(args) == 0 || args[0] != "run" {
			return prog
		}
		return image(positional(args[1:], dockerValued))
	case prog == "deno" || prog == "bun":
		if len(args) > 0 && args[0] == "run" {
			args = args[1:]
		}
		return cmp.Or(script(args, nil), prog)
	case interpreter(prog):
		return cmp.Or(script(args, nil), prog)
	}
	return program(command)
}

// program is command's base name without its extension.
func program(command string) string {
	base := path.Base(strings.ReplaceAll(command, `\`, "/"))
	return strings.TrimSuffix(base, path.Ext(base))
}

// interpreter reports whether prog runs a script named by its first
// argument that is no flag.
func interpreter(prog string) bool {
	if version, ok := strings.CutPrefix(prog, "python"); ok && strings.Trim(version, "0123456789.") == "" {
		return true
	}
	return slices.Contains([]string{"node", "nodejs", "py", "ruby", "php", "perl", "java", "tsx", "ts-node"}, prog)
}

// inline are the interpreters' flags whose value is the program itself
// (node -e, python -c, ruby -e...), which names nothing.
var inline = []string{"-e", "--eval", "-p", "--print", "-c", "-r"}

// The flags of each launcher that take a value as the next argument, which
// is neither the package nor a name to show.
var (
	npxValued    = []string{"-p", "--package", "-c", "--call", "-w", "--workspace", "--registry", "--cache", "--userconfig"}
	uvValued     = []string{"--from", "--with", "--with-editable", "--with-requirements", "--python", "-p", "--directory", "--project", "--index", "--index-url", "--extra-index-url", "--spec", "-w", "--env-file"}
	dockerValued = []string{"-e", "--env", "--env-file", "-v", "--volume", "--mount", "--name", "-p", "--publish", "--network", "--net", "-w", "--workdir", "-u", "--user", "--entrypoint", "--platform", "-l", "--label", "--add-host", "--cpus", "-m", "--memory", "--pull", "--restart", "--hostname", "-h", "--dns", "--runtime", "--gpus", "--ipc", "--pid", "--cap-add", "--cap-drop", "--security-opt", "--tmpfs", "--ulimit", "--device", "--group-add", "--log-driver", "--log-opt", "--shm-size", "--stop-signal", "--stop-timeout"}
)

// positional returns the first argument that is no flag nor the value of
// one of the valued flags, or "".
func positional(args, valued []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "-"):
			if slices.Contains(valued, a) {
				i++
			}
		default:
			return a
		}
	}
	return ""
}

// script is the name of what an interpreter runs with args: the module of
// -m, or else the script's path, skipping uv run's own interpreter.
func script(args, valued []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			return meaningful(strings.Split(args[i+1], "."))
		case a == "-jar" && i+1 < len(args):
			return meaningful(strings.Split(strings.ReplaceAll(args[i+1], `\`, "/"), "/"))
		case slices.Contains(inline, a):
			// The program is the next argument, code, which may hold a
			// secret as a flag's value may: the interpreter names it.
			return ""
		case strings.HasPrefix(a, "-"):
			if slices.Contains(valued, a) {
				i++
			}
		case interpreter(strings.ToLower(program(a))) && i+1 < len(args):
			return script(args[i+1:], nil)
		default:
			return meaningful(strings.Split(strings.ReplaceAll(a, `\`, "/"), "/"))
		}
	}
	return ""
}

// generic are the names that say nothing of a server: the file and
// directory names of every project, and the bare package names.
var generic = []string{"index", "main", "__main__", "server", "build", "dist", "src", "lib", "bin", "out", "cli", "app", "mcp", "mcp-server", "mcp_server"}

// meaningful returns the last of parts, each without its extension, that
// is not generic, or else the last one.
func meaningful(parts []string) string {
	last := ""
	for i := len(parts) - 1; i >= 0; i-- {
		name := strings.TrimSuffix(parts[i], path.Ext(parts[i]))
		if strings.Trim(name, ".") == "" {
			continue
		}
		if last == "" {
			last = name
		}
		if !slices.Contains(generic, strings.ToLower(name)) {
			return name
		}
	}
	return last
}

// npmPackage names an npm package spec: its name without scope or
// version, or scope-name when the name alone is generic.
func npmPackage(spec string) string {
	if i := strings.LastIndex(spec, "@"); i > 0 {
		spec = spec[:i]
	}
	scope, name, scoped := strings.Cut(spec, "/")
	if !scoped {
		return spec
	}
	if slices.Contains(generic, strings.ToLower(name)) {
		return strings.TrimPrefix(scope, "@") + "-" + name
	}
	return name
}

// pythonPackage names a Python requirement: its name without extras or
// version.
func pythonPackage(spec string) string {
	if i := strings.IndexAny(spec, "[=<>~!@;"); i >= 0 {
		spec = spec[:i]
	}
	return spec
}

// image names a container image: its last path element, without
// registry, tag or digest.
func image(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	ref = ref[strings.LastIndex(ref, "/")+1:]
	ref, _, _ = strings.Cut(ref, ":")
	return ref
}

// clean keeps the letters, digits, dots, hyphens and underscores of name,
// each other run of characters made one hyphen.
func clean(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteRune('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}
