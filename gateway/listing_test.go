package gateway_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
)

// What the gateway keeps of a server's listing is bounded in all, across
// its pages (Limits.ListingItems and ListingBytes): a required server whose
// three pages of tools pass a bound of two stops Start, naming the server
// and the bound, and is served whole under the default; a negative bound is
// refused, naming the field.
func TestLimitsBoundAServersListingInAll(t *testing.T) {
	_, srv := hostile.Start(t, "pages")
	cfg := &config.Config{Servers: []config.Server{{Name: "paged", URL: srv.URL, Required: true}}}
	_, err := gateway.Start(t.Context(), cfg, &gateway.Options{Limits: gateway.Limits{ListingItems: 2}})
	if err == nil || !strings.Contains(err.Error(), `server "paged": tools/list: page 3 takes the listing past 2 entries in all`) {
		t.Errorf("a listing of 3 tools under a bound of 2: %v", err)
	}
	url, _ := serve(t, start(t, cfg.Servers, nil))
	if got := toolNames(t, connect(t, url, versions[0], nil, nil)); !slices.Equal(got, []string{"paged_tool_", "paged_tool_p2", "paged_tool_p3"}) {
		t.Errorf("under the default: %q", got)
	}
	for _, l := range []gateway.Limits{{ListingItems: -1}, {ListingBytes: -1}} {
		name := map[bool]string{true: "ListingItems", false: "ListingBytes"}[l.ListingItems < 0]
		if _, err := gateway.Start(t.Context(), &config.Config{}, &gateway.Options{
			Limits: l,
		}); err == nil || !strings.Contains(err.Error(), "Limits."+name+" -1: negative") {
			t.Errorf("%+v: %v, want it refused naming the field", l, err)
		}
	}
}
