package gateway

import "fmt"

// Limits bounds what the gateway holds for its clients: sessions,
// connections, calls and bytes in flight, queues, listings. Each field's zero
// value means its documented default; a negative value lifts a bound only
// where the field's doc says it may. The same limits apply on every replica
// alone: N replicas behind a load balancer hold up to N times each.
type Limits struct {
	// One field per bound, each with its default, its flag of
	// mcpbridge serve and its key in the config's "gateway"."limits".

	// ListingItems bounds one listing of a server (its tools, resources,
	// resource templates or prompts) in entries across all its pages, and
	// ListingBytes in their bytes: zero is 10 000 entries and 16 MiB
	// ([mcptool.WithMaxListing]). A listing past either fails naming the
	// server and the bound: a server whose tools pass it does not start.
	// Neither can be lifted: [Start] refuses a negative value. Flags
	// --max-listing-items and --max-listing-bytes, keys "listingItems"
	// and "listingBytes".
	ListingItems, ListingBytes int
}

// check refuses the bounds that cannot be, naming the field.
func (l Limits) check() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"ListingItems", l.ListingItems}, {"ListingBytes", l.ListingBytes}} {
		if f.n < 0 {
			return fmt.Errorf("gateway: Limits.%s %d: negative, and this bound protects the gateway from a server's listing, so it cannot be lifted", f.name, f.n)
		}
	}
	return nil
}

// WithLimits sets the gateway's bounds; a field left zero keeps its
// default.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }
