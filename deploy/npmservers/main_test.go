package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

func TestNpxPackages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-y", "@modelcontextprotocol/server-memory"}, []string{"@modelcontextprotocol/server-memory"}},
		{[]string{"@modelcontextprotocol/server-everything@2025.9.1", "stdio"}, []string{"@modelcontextprotocol/server-everything@2025.9.1"}},
		{[]string{"--yes", "--registry", "https://npm.example", "mcp-notes", "--port", "1"}, []string{"mcp-notes"}},
		{[]string{"--registry=https://npm.example", "-q", "mcp-notes"}, []string{"mcp-notes"}},
		{[]string{"-p", "@scope/a", "--package", "b@2", "--package=c", "serve-a", "--flag"}, []string{"@scope/a", "b@2", "c"}},
		{[]string{"-y", "--", "mcp-notes", "--", "x"}, []string{"mcp-notes"}},
		{[]string{"-y"}, nil},
	} {
		if got := npxPackages(c.args); !slices.Equal(got, c.want) {
			t.Errorf("npx %q: %q, want %q", c.args, got, c.want)
		}
	}
}

// Only npx servers that are not disabled count, each package once, in the
// file's order; a spec naming a variable is left out, said on stderr.
func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
		"pinned": {"command": "/usr/local/bin/npx", "args": ["-y", "mcp-pinned@1.2.3"]},
		"again": {"command": "npx", "args": ["@modelcontextprotocol/server-memory"]},
		"off": {"command": "npx", "args": ["-y", "mcp-off"], "disabled": true},
		"local": {"command": "node", "args": ["server.js"]},
		"remote": {"url": "https://mcp.example/mcp"},
		"chosen": {"command": "npx", "args": ["-y", "${NPMSERVERS_TEST_UNSET}"]}
	}}`), 0o600)
	var out, errs strings.Builder
	if err := run(path, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if want := "@modelcontextprotocol/server-memory\nmcp-pinned@1.2.3\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	if !strings.Contains(errs.String(), `server "chosen": package "${NPMSERVERS_TEST_UNSET}" names a variable: not installed`) {
		t.Errorf("stderr: %q", errs.String())
	}
	if err := run(filepath.Join(t.TempDir(), "none.json"), &out, &errs); err == nil {
		t.Error("a config that does not exist: no error")
	}
}

// The image's config (deploy/mcp.json) installs its two servers.
func TestTheImagesConfig(t *testing.T) {
	var out, errs strings.Builder
	if err := run("../mcp.json", &out, &errs); err != nil || errs.Len() > 0 {
		t.Fatal(err, errs.String())
	}
	if want := "@modelcontextprotocol/server-memory\n@modelcontextprotocol/server-everything\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// The Dockerfile, its example, the Kubernetes manifest and docs/gateway.md
// name one tokens file: a file of "NAME TOKEN" lines, at the path the
// image's entrypoint reads, which the Secret's key "tokens" fills.
func TestTheTokensFileIsOneFileEverywhere(t *testing.T) {
	dockerfile := read(t, "../Dockerfile")
	m := regexp.MustCompile(`(?m)^ENTRYPOINT (\[.*\])$`).FindStringSubmatch(dockerfile)
	if m == nil {
		t.Fatal("no ENTRYPOINT")
	}
	var entry []string
	if err := json.Unmarshal([]byte(m[1]), &entry); err != nil {
		t.Fatal(err)
	}
	i := slices.Index(entry, "--token-file")
	if i < 0 {
		t.Fatal("the entrypoint reads no tokens file")
	}
	file := entry[i+1]
	if !strings.Contains(dockerfile, "-v $PWD/tokens:"+file+":ro") {
		t.Errorf("the Dockerfile's example does not mount the file tokens at %s", file)
	}
	k8s := read(t, "../kubernetes.yaml")
	if !strings.Contains(k8s, "{name: tokens, mountPath: "+filepath.Dir(file)+",") || !strings.Contains(k8s, "--from-file="+filepath.Base(file)+"=./tokens") {
		t.Errorf("the Secret's key %q is not mounted at %s", filepath.Base(file), filepath.Dir(file))
	}
	if !strings.Contains(read(t, "../../docs/gateway.md"), "--token-file tokens") {
		t.Error("docs/gateway.md's example names no file tokens")
	}
}

// The Dockerfile's install of the servers, run as it is written in a
// directory of the test's, installs a package and lets npx start it with
// no registry (npm's points at a closed port on loopback), by name, from
// the directory the gateway runs in. The package is a tarball made here,
// as the registry is not to be reached.
func TestTheImagesInstallLetsNpxRunWithoutTheRegistry(t *testing.T) {
	node := npmtest.Bin(t, "node")
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm, which make deps uses: %v", err)
	}
	tmp := t.TempDir()
	pkg := filepath.Join(tmp, "pkg")
	os.MkdirAll(filepath.Join(pkg, "bin"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name": "fake-mcp-server", "version": "1.0.0", "bin": {"fake-mcp-server": "bin/serve.js"}}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "bin", "serve.js"), []byte("#!/usr/bin/env node\nconsole.log('served by ' + process.argv.slice(2).join(' '))\n"), 0o755)

	home, servers := filepath.Join(tmp, "home"), filepath.Join(tmp, "servers")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(servers, 0o755)
	env := []string{"HOME=" + home, "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + filepath.Dir(npm) + string(os.PathListSeparator) + "/usr/bin:/bin",
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0"}
	sh := func(dir, script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	tarball := strings.TrimSpace(sh(pkg, "npm pack --silent --pack-destination "+tmp))
	packages := filepath.Join(tmp, "npm-packages")
	os.WriteFile(packages, []byte(filepath.Join(tmp, tarball)+"\n"), 0o644)

	script := strings.ReplaceAll(runLine(t, read(t, "../Dockerfile"), "RUN npm init -y"), "/opt/mcpbridge/npm-packages", packages)
	sh(servers, script)
	if got := sh(servers, "npx -y fake-mcp-server stdio"); strings.TrimSpace(got) != "served by stdio" {
		t.Errorf("npx in the servers' project: %q", got)
	}
	// Out of that project npx has to ask the registry, which is not there.
	elsewhere := exec.Command("sh", "-c", "npx -y fake-mcp-server stdio")
	elsewhere.Dir, elsewhere.Env = t.TempDir(), env
	if out, err := elsewhere.CombinedOutput(); err == nil {
		t.Errorf("npx out of the servers' project ran without the registry: %s", out)
	}
	// With nothing listed, the install installs nothing, and fails not.
	os.WriteFile(packages, nil, 0o644)
	sh(t.TempDir(), script)
}

// runLine returns the command of the Dockerfile's instruction that begins
// with prefix, its continued lines joined, without the instruction.
func runLine(t *testing.T, dockerfile, prefix string) string {
	t.Helper()
	var cmd []string
	for line := range strings.Lines(dockerfile) {
		line = strings.TrimSpace(line)
		if len(cmd) == 0 && !strings.HasPrefix(line, prefix) {
			continue
		}
		cmd = append(cmd, strings.TrimSuffix(line, "\\"))
		if !strings.HasSuffix(line, "\\") {
			return strings.TrimPrefix(strings.Join(cmd, " "), "RUN ")
		}
	}
	t.Fatalf("no %q in the Dockerfile", prefix)
	return ""
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
