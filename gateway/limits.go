package gateway

// Limits bounds what the gateway holds for its clients: sessions,
// connections, calls and bytes in flight, queues, listings. Each field's zero
// value means its documented default; a negative value lifts a bound only
// where the field's doc says it may. The same limits apply on every replica
// alone: N replicas behind a load balancer hold up to N times each.
type Limits struct {
	// One field per bound, each with its default, its flag of
	// mcpbridge serve and its key in the config's "gateway"."limits".
}

// WithLimits sets the gateway's bounds; a field left zero keeps its
// default.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }
