package gateway

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// CodeRateLimited is the JSON-RPC error code of a request refused because
// its client is over its rate limit ([RateLimit]), or over a bound of
// [Limits] a client waits out: the requests being served (Calls,
// CallsPerClient, past its CallQueue), the sessions open (Sessions,
// SessionsPerClient). It lies outside the range JSON-RPC and MCP reserve
// (-32768 to -32000), as the 2026-07-28 revision asks of a code it does
// not define. The error's data is {"retryAfter": seconds} for a rate limit,
// the wait before the client's next request is taken, and {"bound": name,
// "limit": n} for a bound of Limits; its message names either.
//
// A JSON-RPC error rather than HTTP 429: it answers the one request
// refused, over either protocol generation and over stdio alike, and every
// client hands it to its caller as that request's failure with the message
// and the wait; go-sdk's client reads a 429 as a bare "Too Many Requests"
// (Retry-After lost), and a 429 to a notification or to the client's answer
// to a server's request would lose it.
const CodeRateLimited = -31429

// maxBuckets bounds the clients whose buckets are kept: past it, the
// buckets that are full again (clients idle long enough) are dropped.
const maxBuckets = 10000

type rateLimit struct {
	perSecond float64
	burst     int
}

// A limiter keeps one token bucket per client: in the replicas' shared
// store when there is one (store.go), else, and while it does not answer,
// in this process, of the replica's share of the figures.
type limiter struct {
	rates  map[string]rateLimit
	shared *store // nil without Options.Store

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	rate   rateLimit
	tokens float64
	at     time.Time // when tokens was right
}

func newLimiter(rates map[string]rateLimit) *limiter {
	return &limiter{rates: rates, buckets: map[string]*bucket{}}
}

// limit is the rate limit of the entry of [Options] Clients named entry,
// and false when it has none.
func (l *limiter) limit(entry string) (rateLimit, bool) {
	r, ok := l.rates[entry]
	if !ok || r.perSecond == 0 {
		r = l.rates[""]
	}
	if r.perSecond <= 0 {
		return r, false
	}
	if r.burst == 0 {
		r.burst = max(1, int(math.Ceil(r.perSecond)))
	}
	return r, true
}

// handshake reports whether method is what a client says to connect,
// which its rate limit does not count: a burst is the client's calls.
// Each is still bounded by the sessions and the slots a client may hold.
func handshake(method string) bool {
	switch method {
	case "initialize", "server/discover", "subscriptions/listen":
		return true
	}
	return false
}

// take counts a request of client, whose entry of [Options] Clients is
// entry, or refuses it with [CodeRateLimited] when the client's bucket is
// empty: each client has a bucket of its own, of its entry's figures (an
// app's users behind OAuth each have one).
func (l *limiter) take(client, entry string) error {
	r, ok := l.limit(entry)
	if !ok {
		return nil
	}
	if l.shared != nil {
		wait, err := l.shared.take(client, r)
		if err == nil {
			if wait <= 0 {
				return nil
			}
			return rateRefusal(client, r, wait)
		}
		r = l.shared.shareRate(r)
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[client]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.sweep(now)
		}
		b = &bucket{rate: r, tokens: float64(r.burst), at: now}
		l.buckets[client] = b
	}
	b.rate = r
	b.tokens = min(float64(r.burst), b.tokens+now.Sub(b.at).Seconds()*r.perSecond)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return nil
	}
	return rateRefusal(client, r, time.Duration((1-b.tokens)/r.perSecond*float64(time.Second)))
}

// rateRefusal is the error of a request of client over its rate limit r,
// saying the wait before its next request is taken.
func rateRefusal(client string, r rateLimit, wait time.Duration) error {
	data, _ := json.Marshal(map[string]float64{"retryAfter": math.Ceil(wait.Seconds()*1000) / 1000})
	who := "requests without a token"
	if client != "" {
		who = fmt.Sprintf("client %q", client)
	}
	return &jsonrpc.Error{
		Code:    CodeRateLimited,
		Message: fmt.Sprintf("rate limit exceeded for %s (%g requests a second, bursts of %d): retry in %s", who, r.perSecond, r.burst, wait.Round(time.Millisecond)),
		Data:    data,
	}
}

// sweep drops the buckets that are full at now: their clients have been
// idle long enough that a new bucket is the same.
func (l *limiter) sweep(now time.Time) {
	for client, b := range l.buckets {
		if r := b.rate; b.tokens+now.Sub(b.at).Seconds()*r.perSecond >= float64(r.burst) {
			delete(l.buckets, client)
		}
	}
}
