package gateway

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A notice of a server goes by whom its requests in flight are for: the
// request its context carries; else one client's requests, however many,
// make one owner; two clients', or two sessions of clients without a name,
// make several; none, no one.
func TestInFlightOwners(t *testing.T) {
	var f inFlight
	ctx := context.Background()
	alice, bob := callerKey.With(ctx, caller{name: "alice"}), callerKey.With(ctx, caller{name: "bob"})
	s1, s2 := new(mcp.ServerSession), new(mcp.ServerSession)
	owners := func(ctx context.Context) int {
		_, n := f.owner(ctx, "notes")
		return n
	}
	if n := owners(ctx); n != 0 {
		t.Fatalf("no request in flight: %d owners", n)
	}
	_, leave1 := f.enter(alice, "notes", nil)
	callCtx, leave2 := f.enter(alice, "notes", s1)
	if c, n := f.owner(ctx, "notes"); n != 1 || c.ss != s1 {
		t.Errorf("two requests of alice: %d owners, told through %v, want 1 through her session", n, c)
	}
	_, leave3 := f.enter(bob, "notes", s2)
	if n := owners(ctx); n != 2 {
		t.Errorf("alice's and bob's requests: %d owners, want several", n)
	}
	if c, n := f.owner(callCtx, "notes"); n != 1 || c.ss != s1 {
		t.Errorf("a notice with alice's request's context: %d owners, want hers", n)
	}
	if _, n := f.owner(ctx, "github"); n != 0 {
		t.Errorf("another server: %d owners", n)
	}
	leave1()
	leave2()
	leave3()
	_, leave1 = f.enter(ctx, "notes", s1)
	_, leave2 = f.enter(ctx, "notes", s2)
	if n := owners(ctx); n != 2 {
		t.Errorf("two sessions of clients without names: %d owners, want several", n)
	}
	leave1()
	leave2()
	_, leave1 = f.enter(ctx, "notes", nil)
	_, leave2 = f.enter(ctx, "notes", nil)
	if n := owners(ctx); n != 2 {
		t.Errorf("two fast calls of clients without names: %d owners, want several", n)
	}
	leave1()
	leave2()
	if _, leave := f.enter(ctx, "", s1); owners(ctx) != 0 {
		t.Error("a request of no server is counted")
	} else {
		leave()
	}
}
