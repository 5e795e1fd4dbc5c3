package main_test

import (
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/testing/npmtest"
)

// A server that declares no resources capability is not asked for one:
// read says so, naming the server, and exits with status 2 (nothing was
// sent, as for a tool that does not exist), not with the server's "Method
// not found" and status 3. The examples of read's help work as written.
func TestReadFromServerWithoutResources(t *testing.T) {
	files := npmtest.Bin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	r := mcpbridge(t, dir, "", nil, "read", "file://"+dir+"/x.txt", "--", files, dir)
	expect(t, r, 2, `server "mcp-server-filesystem" offers no resources`)
	if strings.Contains(r.err, "Method not found") || r.out != "" {
		t.Errorf("the server was asked:\nstdout:\n%s\nstderr:\n%s", r.out, r.err)
	}
	// Its listing says why it is empty.
	expect(t, mcpbridge(t, dir, "", nil, "read", "--", files, dir), 0, "no resources (the server declares no resources capability)")

	expect(t, mcpbridge(t, dir, "", nil, "read", "notes://all"), 0)
	base := demoHTTP(t)
	expect(t, mcpbridge(t, dir, "", nil, "read", "notes://all", "--url", base+"/mcp"), 0)
}
