package hostile

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The size of the vast-listing mode's listings: every page a legal message
// (about 700 KB, far below any client's bound on one), but 100 pages of
// them, a million tools and a million resources in all (67 MiB of tools).
const (
	VastPages   = 100
	VastPerPage = 10_000
)

// vastListing lists VastPages pages of VastPerPage tools, and as many
// resources: each page alone is as a server may send it, and the listing
// in all is what a client must not keep. Each page is written as text,
// not encoded, so that the server keeps up with a client that reads fast.
func vastListing(_ *Server, req *Request) (string, bool) {
	switch req.Method {
	case "initialize":
		res := InitializeResult("2025-11-25")
		res["capabilities"].(map[string]any)["resources"] = map[string]any{}
		return Result(req.ID, res), true
	case "tools/list":
		return vastPage(req, "tools", func(b *strings.Builder, page, i int) {
			fmt.Fprintf(b, `{"name":"tool_p%03d_%06d","inputSchema":{"type":"object"}}`, page, i)
		}), true
	case "resources/list":
		return vastPage(req, "resources", func(b *strings.Builder, page, i int) {
			fmt.Fprintf(b, `{"uri":"vast://p%03d/%06d","name":"item_p%03d_%06d"}`, page, i, page, i)
		}), true
	}
	return "", false
}

// vastPage answers the listing req asks a page of: the page its cursor
// names (none, the first), each item written by item, and the cursor of
// the next page, but on the last.
func vastPage(req *Request, member string, item func(b *strings.Builder, page, i int)) string {
	page, _ := strconv.Atoi(cursor(req))
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(req.ID)
	fmt.Fprintf(&b, `,"result":{%q:[`, member)
	for i := range VastPerPage {
		if i > 0 {
			b.WriteByte(',')
		}
		item(&b, page, i)
	}
	b.WriteString("]")
	if page+1 < VastPages {
		next, _ := json.Marshal(strconv.Itoa(page + 1))
		fmt.Fprintf(&b, `,"nextCursor":%s`, next)
	}
	b.WriteString("}}")
	return b.String()
}
