package stdio

import (
	"strings"
	"testing"
)

func TestServerName(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"npx -y @modelcontextprotocol/server-memory", "server-memory"},
		{"npx -y @modelcontextprotocol/server-everything@2026.8.31 stdio", "server-everything"},
		{"npx @playwright/mcp@latest --headless", "playwright-mcp"},
		{"npx -y @upstash/context7-mcp --api-key SECRET", "context7-mcp"},
		{"npx -y chrome-devtools-mcp@latest", "chrome-devtools-mcp"},
		{"npx.cmd -y @wonderwhy-er/desktop-commander", "desktop-commander"},
		{"npx -p some-pkg@2 its-bin", "its-bin"},
		{"npx", "npx"},
		{"pnpm dlx @scope/tool", "tool"},
		{"npm exec -- @scope/tool", "tool"},
		{"bunx tool-server", "tool-server"},
		{"uvx mcp-server-fetch", "mcp-server-fetch"},
		{"uvx --from git+https://user:SECRET@github.com/x/y mcp-server-git==1.0", "mcp-server-git"},
		{"pipx run mcp-server-time[extra]", "mcp-server-time"},
		{"uv --directory /home/me/weather run weather.py", "weather"},
		{"uv run --with mcp python -m mcp_server_git.server", "mcp_server_git"},
		{"node build/index.js", "index"},
		{"node /home/me/weather-server/build/index.js", "weather-server"},
		{"node --inspect ./dist/main.mjs", "main"},
		{"node -e require('./srv').run({key:'SECRET'})", "node"},
		{"node --eval x", "node"},
		{"python3 -c import_srv;srv.run()", "python3"},
		{"ruby -e puts(1)", "ruby"},
		{"python -m pkg", "pkg"},
		{"python3.12 -u /srv/notes/server.py", "notes"},
		{"python server.py", "server"},
		{"deno run -A jsr:@me/tool/main.ts", "tool"},
		{"java -jar /opt/tools/jira-mcp.jar", "jira-mcp"},
		{"docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server:v1", "github-mcp-server"},
		{"docker run -i --rm --env=X=SECRET -v /a:/b mcp/fetch@sha256:abc", "fetch"},
		{"podman container run -i img", "img"},
		{"docker ps", "docker"},
		{"cmd /c npx -y @modelcontextprotocol/server-memory", "server-memory"},
		{"/usr/local/bin/my-server", "my-server"},
		{"./server.py", "server"},
		{"npx -y evil\x1b[31m\u202ename", "evil-31m-name"},
	} {
		f := strings.Fields(tc.cmd)
		if got := ServerName(f[0], f[1:]); got != tc.want {
			t.Errorf("ServerName(%q) = %q, want %q", tc.cmd, got, tc.want)
		}
	}
}
