package gateway

// Limits bounds what the gateway holds for its clients: sessions,
// connections, calls and bytes in flight, queues, listings. Each field's zero
// value means its documented default; a negative value lifts a bound only
// where the field's doc says it may. The same limits apply on every replica
// alone: N replicas behind a load balancer hold up to N times each.
type Limits struct {
	// One field per bound, each with its default, its flag of
	// mcpbridge serve and its key in the config's "gateway"."limits".

	// ClientQueueBytes bounds what the gateway holds for one stream of a
	// client that does not read it (a session's event stream, the answer
	// to a request): a client whose stream holds more when another
	// message comes has fallen behind, and loses that stream, logged
	// (lanes.go). Zero means DefaultClientQueueBytes; a negative value is
	// refused. serve --client-queue-bytes, "clientQueueBytes".
	ClientQueueBytes int

	// ServerQueueBytes bounds what the gateway holds of one server's
	// notices (log messages, progress, resource updates) it has yet to
	// pass on to its clients: a notice that comes while it holds more is
	// dropped, and the drops are logged (passon.go). Zero means
	// DefaultServerQueueBytes; a negative value is refused.
	// serve --server-queue-bytes, "serverQueueBytes".
	ServerQueueBytes int
}

// DefaultServerQueueBytes is [Limits].ServerQueueBytes's default: 4 MiB.
const DefaultServerQueueBytes = 4 << 20

func (l Limits) serverQueue() int {
	if l.ServerQueueBytes == 0 {
		return DefaultServerQueueBytes
	}
	return l.ServerQueueBytes
}

// DefaultClientQueueBytes is [Limits].ClientQueueBytes's default: 1 MiB.
const DefaultClientQueueBytes = 1 << 20

func (l Limits) clientQueue() int {
	if l.ClientQueueBytes == 0 {
		return DefaultClientQueueBytes
	}
	return l.ClientQueueBytes
}

// WithLimits sets the gateway's bounds; a field left zero keeps its
// default.
func WithLimits(l Limits) Option { return func(o *options) { o.limits = l } }
