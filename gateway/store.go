package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// The replicas' shared store ([Options] Store): Redis 7, or Valkey, which
// speaks its protocol. Through it a client's rate limit, sessions and calls
// in flight are counted across every replica, each count one atomic script
// in Redis (never read here and written back), and the replicas share their
// task key. What a replica holds of its own memory (the sessions and calls
// in all, the bytes) stays its own.
//
// Each operation is bounded by [Limits] StoreTimeout. One that fails or
// times out marks the store down: from then on, until a probe (once a
// second) answers, no request waits for it, and each per-client limit falls
// back to this replica's share of it, the figure divided by the replicas
// last seen in the store: the load balancer spreads a client's requests
// over the replicas, so the shares add up to about the figure. Refusing
// instead would make the store a single point of failure for every client;
// holding the whole figure on each replica would let a client take N times
// it while the store is gone. The change each way is logged once, shown in
// /readyz and counted in the metrics (storemetrics.go).

// leaseTTL is how long a session or call counted in the store stays
// counted without its replica renewing it: a replica killed leaves its
// counts for at most that long.
const leaseTTL = 20 * time.Second

// beat is how often a replica renews its leases and its presence, and
// probe how often it tries a store marked down.
const (
	beat  = leaseTTL / 4
	probe = time.Second
)

// keyPrefix begins every key the gateway writes.
const keyPrefix = "mcpbridge:"

// errStoreDown is the error of an operation not tried, the store being
// marked down.
var errStoreDown = errors.New("the shared store is unreachable")

// A store is the replicas' shared store, with the leases this replica holds
// in it (sessions, calls), renewed until released, and written again after
// the store comes back.
type store struct {
	rdb     *redis.Client
	timeout time.Duration
	addr    string // the store's URL fit to log
	replica string // this replica's id in the store
	log     *slog.Logger
	metrics *storeMetrics // storemetrics.go

	up       atomic.Bool
	replicas atomic.Int64 // the replicas last seen, at least 1
	seq      atomic.Uint64

	mu     sync.Mutex
	leases map[string]map[string]bool // key → the members this replica holds
	err    error                      // why the store was last marked down
	key    []byte                     // the replicas' task key, once read

	down chan struct{} // the store was marked down: probe it from now on
	stop chan struct{}
	done sync.WaitGroup
}

// openStore connects to the store at rawURL (redis://, rediss://,
// unix://), each operation bounded by timeout, and starts the goroutine
// that renews this replica's leases and probes a store marked down. A
// store unreachable now is marked down, not refused: the replica serves
// on its shares until it answers. A URL it cannot read is refused.
func openStore(rawURL string, timeout time.Duration, log *slog.Logger, metrics *storeMetrics) (*store, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		// go-redis's error may quote the URL, password and all.
		return nil, fmt.Errorf("gateway: Store %s: want redis://[user:password@]host:port[/db], rediss://... or unix:///path", redact.URL(rawURL))
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = timeout, timeout, timeout, timeout
	opt.ContextTimeoutEnabled = true
	// A retry would double a request's wait: a failure marks the store
	// down instead, and the probe finds it back.
	opt.MaxRetries, opt.DialerRetries = -1, 1
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	id := make([]byte, 8)
	rand.Read(id)
	s := &store{
		rdb: redis.NewClient(opt), timeout: timeout, addr: redact.URL(rawURL), log: log, metrics: metrics,
		replica: fmt.Sprintf("%x", id), leases: map[string]map[string]bool{}, down: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	s.replicas.Store(1)
	s.up.Store(true)
	s.renew()
	s.done.Add(1)
	go s.work()
	return s, nil
}

// close stops the goroutine and gives back what this replica holds in the
// store, within one operation's bound.
func (s *store) close() {
	close(s.stop)
	s.done.Wait()
	if s.up.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		pipe := s.rdb.Pipeline()
		s.mu.Lock()
		for key, members := range s.leases {
			for m := range members {
				pipe.ZRem(ctx, key, m)
			}
		}
		s.mu.Unlock()
		pipe.ZRem(ctx, keyPrefix+"replicas", s.replica)
		_, _ = pipe.Exec(ctx) // what is left expires with its lease
		cancel()
	}
	_ = s.rdb.Close()
	s.metrics.close()
}

// work renews this replica's leases every beat while the store is up, and
// probes it every second while it is down.
func (s *store) work() {
	defer s.done.Done()
	t := time.NewTimer(beat)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-s.down:
			t.Reset(probe)
			continue
		case <-t.C:
		}
		s.renew()
		if s.up.Load() {
			t.Reset(beat)
		} else {
			t.Reset(probe)
		}
	}
}

// ready reports whether the store is up; a nil store (none configured) is.
func (s *store) ready() bool { return s == nil || s.up.Load() }

// state is the store's state as /readyz says it: "" without a store.
func (s *store) state() string {
	switch {
	case s == nil:
		return ""
	case s.up.Load():
		return "up"
	}
	return "unreachable"
}

// ctx is the context of one operation.
func (s *store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// failed marks the store down after an operation failed with err, logging
// the change once.
func (s *store) failed(op string, err error) {
	s.metrics.failed(op)
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	if s.up.Swap(false) {
		select {
		case s.down <- struct{}{}:
		default:
		}
		s.metrics.changed(false)
		s.log.Warn("gateway: the shared store is unreachable: each replica holds its share of the per-client limits until it answers",
			"store", s.addr, "op", op, "err", redact.URLs(err.Error()), "replicas", s.replicas.Load())
	}
}

// recovered marks the store up, logging the change once.
func (s *store) recovered() {
	if !s.up.Swap(true) {
		s.metrics.changed(true)
		s.log.Info("gateway: the shared store answers again: the per-client limits are counted across the replicas", "store", s.addr)
	}
}

// run runs one operation f if the store is up, marking it down if f fails.
func (s *store) run(op string, f func(ctx context.Context) error) error {
	if !s.up.Load() {
		return errStoreDown
	}
	ctx, cancel := s.ctx()
	defer cancel()
	start := time.Now()
	err := f(ctx)
	s.metrics.took(op, time.Since(start))
	if err != nil && !errors.Is(err, redis.Nil) {
		s.failed(op, err)
		return err
	}
	return nil
}

// renew writes this replica's presence and every lease it holds with a
// new expiry, reads how many replicas there are, and marks the store up or
// down by the outcome: after the store was down, it so counts again the
// sessions and calls made meanwhile.
func (s *store) renew() {
	ctx, cancel := s.ctx()
	defer cancel()
	s.mu.Lock()
	keys := make(map[string][]any, len(s.leases))
	for key, members := range s.leases {
		for m := range members {
			keys[key] = append(keys[key], m)
		}
	}
	taskKey := s.key
	s.mu.Unlock()
	pipe := s.rdb.Pipeline()
	if taskKey != nil {
		// A store restarted empty gets the key back before a replica
		// that starts makes another.
		pipe.SetNX(ctx, keyPrefix+"taskkey", taskKey, 0)
	}
	n := renewScript.Run(ctx, pipe, []string{keyPrefix + "replicas"}, leaseTTL.Milliseconds(), s.replica)
	for key, members := range keys {
		renewScript.Run(ctx, pipe, []string{key}, append([]any{leaseTTL.Milliseconds()}, members...)...)
	}
	_, err := pipe.Exec(ctx)
	if err != nil && isNoScript(err) {
		// A store restarted has forgotten the scripts: Exec sent each
		// by its hash. Once more, in full.
		pipe = s.rdb.Pipeline()
		if taskKey != nil {
			pipe.SetNX(ctx, keyPrefix+"taskkey", taskKey, 0)
		}
		n = pipe.Eval(ctx, renewSource, []string{keyPrefix + "replicas"}, leaseTTL.Milliseconds(), s.replica)
		for key, members := range keys {
			pipe.Eval(ctx, renewSource, []string{key}, append([]any{leaseTTL.Milliseconds()}, members...)...)
		}
		_, err = pipe.Exec(ctx)
	}
	if err != nil {
		s.failed("renew", err)
		return
	}
	if v, err := n.Int64(); err == nil {
		s.saw(v)
	}
	s.recovered()
}

func isNoScript(err error) bool {
	return err != nil && len(err.Error()) >= 8 && err.Error()[:8] == "NOSCRIPT"
}

// saw notes the replicas the store counts now (this one among them, once
// it renewed its presence): the shares while the store is down are of
// the last count, which every operation brings up to date.
func (s *store) saw(replicas int64) {
	if replicas > 0 {
		s.replicas.Store(replicas)
	}
}

// share is this replica's share of a per-client bound n while the store is
// down: n divided by the replicas last seen, rounded up, at least 1; 0 (no
// bound) stays 0.
func (s *store) share(n int) int {
	if n <= 0 {
		return n
	}
	return max(1, int(math.Ceil(float64(n)/float64(s.replicas.Load()))))
}

// shareRate is this replica's share of the rate limit r while the store is
// down, as share is of a bound.
func (s *store) shareRate(r rateLimit) rateLimit {
	return rateLimit{perSecond: r.perSecond / float64(s.replicas.Load()), burst: s.share(r.burst)}
}

// take counts a request of client against the token bucket of the figures
// r in the store, and returns the wait before its next request is taken
// when it is refused (0 when taken). The bucket is the client's across the
// replicas; its clock is the store's, so the replicas' clocks need not agree.
func (s *store) take(client string, r rateLimit) (time.Duration, error) {
	var wait int64
	err := s.run("rate", func(ctx context.Context) error {
		v, err := rateScript.Run(ctx, s.rdb, []string{keyPrefix + "rate:" + client, keyPrefix + "replicas"},
			strconv.FormatFloat(r.perSecond, 'g', -1, 64), r.burst).Int64Slice()
		if err == nil && len(v) == 2 {
			wait = v[0]
			s.saw(v[1])
		}
		return err
	})
	return time.Duration(wait) * time.Microsecond, err
}

// A lease kind names the set of a client's leases: its sessions, its
// calls in flight.
const (
	sessionLeases = "sessions:"
	callLeases    = "calls:"
)

// member returns a new name for a lease of this replica's.
func (s *store) member() string {
	return s.replica + ":" + strconv.FormatUint(s.seq.Add(1), 36)
}

// acquire takes a lease member in the set kind of client, unless the set
// holds limit leases already (0: no limit), and returns how many it holds
// then. A lease taken is this replica's until release, renewed every
// beat; one the store could not be asked for (the error) is not taken:
// the caller judges by its share and, if it goes ahead, holds the lease
// with hold, so that the store counts it once it answers again.
func (s *store) acquire(kind, client, member string, limit int) (held int, ok bool, err error) {
	key := keyPrefix + kind + client
	err = s.run("acquire", func(ctx context.Context) error {
		v, err := acquireScript.Run(ctx, s.rdb, []string{key, keyPrefix + "replicas"}, leaseTTL.Milliseconds(), limit, member).Int64Slice()
		if err == nil && len(v) == 3 {
			ok, held = v[0] == 1, int(v[1])
			s.saw(v[2])
		}
		return err
	})
	if err == nil && ok {
		s.hold(kind, client, member)
	}
	return held, ok, err
}

// hold notes a lease of this replica's, to renew.
func (s *store) hold(kind, client, member string) {
	key := keyPrefix + kind + client
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leases[key] == nil {
		s.leases[key] = map[string]bool{}
	}
	s.leases[key][member] = true
}

// release gives a lease back; one the store cannot be told of expires.
func (s *store) release(kind, client, member string) {
	key := keyPrefix + kind + client
	s.mu.Lock()
	delete(s.leases[key], member)
	if len(s.leases[key]) == 0 {
		delete(s.leases, key)
	}
	s.mu.Unlock()
	_ = s.run("release", func(ctx context.Context) error { return s.rdb.ZRem(ctx, key, member).Err() })
}

// taskKey returns the replicas' task key, made by the first replica to ask
// (a random one of TaskKeySize bytes) and read by the others.
func (s *store) taskKey() ([]byte, error) {
	fresh := make([]byte, TaskKeySize)
	rand.Read(fresh)
	var key []byte
	err := s.run("task key", func(ctx context.Context) error {
		if err := s.rdb.SetNX(ctx, keyPrefix+"taskkey", fresh, 0).Err(); err != nil {
			return err
		}
		var err error
		key, err = s.rdb.Get(ctx, keyPrefix+"taskkey").Bytes()
		return err
	})
	if err == nil && len(key) < TaskKeySize {
		err = fmt.Errorf("the key %staskkey holds %d bytes: want %d or more", keyPrefix, len(key), TaskKeySize)
	}
	if err == nil {
		s.mu.Lock()
		s.key = key
		s.mu.Unlock()
	}
	return key, err
}

// The scripts run in the store, each atomic there. Their clock is the
// store's (TIME), the same for every replica.

// rateScript takes a token from the bucket KEYS[1] of ARGV[1] tokens a
// second and ARGV[2] at most, full when new, and returns {0, or the wait in
// microseconds until a token is there; the replicas of KEYS[2] alive}. The
// bucket expires once full again.
var rateScript = redis.NewScript(`
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local replicas = redis.call('ZCOUNT', KEYS[2], math.floor(now * 1000), '+inf')
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(b[1]), tonumber(b[2])
if tokens == nil or at == nil then tokens, at = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate * 1e6) end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return {wait, replicas}
`)

// acquireScript adds ARGV[3] to the set of leases KEYS[1], expiring in
// ARGV[1] ms, unless it holds ARGV[2] unexpired ones already (0: no bound),
// and returns {1 if added, the leases held, the replicas of KEYS[2]
// alive}. A lease held already is renewed.
var acquireScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local replicas = redis.call('ZCOUNT', KEYS[2], now, '+inf')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) == false then
  if limit > 0 and n >= limit then return {0, n, replicas} end
  n = n + 1
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return {1, n, replicas}
`)

// renewScript writes each lease ARGV[2...] of the set KEYS[1] to expire in
// ARGV[1] ms, whether the set still holds it or not, and returns how many
// unexpired leases the set holds.
var renewScript = redis.NewScript(renewSource)

const renewSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return redis.call('ZCARD', KEYS[1])
`
