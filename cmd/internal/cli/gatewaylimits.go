package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpbridge/mcpbridge/gateway"
)

// A limitFlag is one bound of [gateway.Limits]: its flag of serve, its key
// in the config's "gateway"."limits", and the field it sets.
type limitFlag struct {
	flag, key, usage string
	value            flag.Value                          // which sets the field
	config           func(*limitsConfig) json.RawMessage // its value in the config, if any
}

// limitFlags registers a flag of serve for each bound of l, shown with its
// default, and returns them; each flag the command line gives sets its
// field of l. The bound on connections is at most half the files the
// process may open: a client that holds connections then meets the bound
// (which makes room for a new one) before the process runs out of
// descriptors, past which a new connection is neither accepted nor
// answered.
func limitFlags(fs *flag.FlagSet, l *gateway.Limits) []limitFlag {
	*l = gateway.Limits{}.Resolved()
	if n := openFiles() / 2; n > 0 && n < l.Connections {
		l.Connections = n
	}
	flags := []limitFlag{
		{"max-sessions", "sessions", "keep at most `N` sessions (2025-11-25) open at once", (*intValue)(&l.Sessions), func(c *limitsConfig) json.RawMessage { return c.Sessions }},
		{"max-sessions-per-client", "sessionsPerClient", "keep at most `N` sessions of one client open at once", (*intValue)(&l.SessionsPerClient), func(c *limitsConfig) json.RawMessage { return c.SessionsPerClient }},
		{"session-idle", "sessionIdle", "close a session without a request for `DURATION`", (*durationValue)(&l.SessionIdle), func(c *limitsConfig) json.RawMessage { return c.SessionIdle }},
		{"max-calls", "calls", "serve at most `N` requests at once; more wait in their client's queue", (*intValue)(&l.Calls), func(c *limitsConfig) json.RawMessage { return c.Calls }},
		{"max-calls-per-client", "callsPerClient", "serve at most `N` requests of one client at once", (*intValue)(&l.CallsPerClient), func(c *limitsConfig) json.RawMessage { return c.CallsPerClient }},
		{"max-server-calls", "serverCalls", "send at most `N` requests at once to one server, shared fairly between the clients", (*intValue)(&l.ServerCalls), func(c *limitsConfig) json.RawMessage { return c.ServerCalls }},
		{"call-queue", "callQueue", "let at most `N` requests of one client wait for a slot; more are refused", (*intValue)(&l.CallQueue), func(c *limitsConfig) json.RawMessage { return c.CallQueue }},
		{"max-request-bytes", "requestBytes", "hold at most `SIZE` of request bodies at once (such as 64MiB)", (*sizeValue)(&l.RequestBytes), func(c *limitsConfig) json.RawMessage { return c.RequestBytes }},
		{"max-request-bytes-per-client", "requestBytesPerClient", "hold at most `SIZE` of one client's request bodies at once", (*sizeValue)(&l.RequestBytesPerClient), func(c *limitsConfig) json.RawMessage { return c.RequestBytesPerClient }},
		{"max-result-bytes", "resultBytes", "hold at most `SIZE` of answers clients have not read, in all (such as 256MiB); past it an answer is refused", (*sizeValue)(&l.ResultBytes), func(c *limitsConfig) json.RawMessage { return c.ResultBytes }},
		{"max-result-bytes-per-client", "resultBytesPerClient", "hold at most `SIZE` of answers one client has not read", (*sizeValue)(&l.ResultBytesPerClient), func(c *limitsConfig) json.RawMessage { return c.ResultBytesPerClient }},
		{"max-request-depth", "requestDepth", "refuse a request whose JSON nests deeper than `N`", (*intValue)(&l.RequestDepth), func(c *limitsConfig) json.RawMessage { return c.RequestDepth }},
		{"max-request-values", "requestValues", "refuse a request whose JSON holds more than `N` values", (*intValue)(&l.RequestValues), func(c *limitsConfig) json.RawMessage { return c.RequestValues }},
		{"body-read", "bodyRead", "cut off a request whose body takes longer than `DURATION` to arrive", (*durationValue)(&l.BodyRead), func(c *limitsConfig) json.RawMessage { return c.BodyRead }},
		{"max-connections", "connections", "keep at most `N` HTTP connections open at once (at most half the open-files limit by default)", (*intValue)(&l.Connections), func(c *limitsConfig) json.RawMessage { return c.Connections }},
		{"connection-idle", "connectionIdle", "close a keep-alive connection idle for `DURATION`", (*durationValue)(&l.ConnectionIdle), func(c *limitsConfig) json.RawMessage { return c.ConnectionIdle }},
		{"max-listing-items", "listingItems", "refuse a server's listing (tools, resources, templates, prompts) of more than `N` entries in all its pages (default 10000)", (*boundValue)(&l.ListingItems), func(c *limitsConfig) json.RawMessage { return c.ListingItems }},
		{"client-queue-bytes", "clientQueueBytes", "hold at most `N` bytes for a client's stream it does not read; past it, the client loses the stream (default 1 MiB)", (*boundValue)(&l.ClientQueueBytes), func(c *limitsConfig) json.RawMessage { return c.ClientQueueBytes }},
		{"server-queue-bytes", "serverQueueBytes", "hold at most `N` bytes of a server's notices (log, progress, updates) not yet passed on; past it, they are dropped (default 4 MiB)", (*boundValue)(&l.ServerQueueBytes), func(c *limitsConfig) json.RawMessage { return c.ServerQueueBytes }},
		{"max-listing-bytes", "listingBytes", "refuse a server's listing of more than `N` bytes in all its pages (default 16 MiB)", (*boundValue)(&l.ListingBytes), func(c *limitsConfig) json.RawMessage { return c.ListingBytes }},
		{"store-timeout", "storeTimeout", "bound each operation on the shared store (--store) to `DURATION`; past it the limits fall back to this replica's share", (*durationValue)(&l.StoreTimeout), func(c *limitsConfig) json.RawMessage { return c.StoreTimeout }},
	}
	for _, f := range flags {
		fs.Var(f.value, f.flag, f.usage+` (config "`+f.key+`")`)
	}
	return flags
}

// applyLimits sets the bounds of flags from the config's "limits" object c
// (nil for none), each one the command line did not give: a flag wins over
// the config. A value is written as the flag's: a number, or a string (a
// duration, a size with its unit).
func applyLimits(fs *flag.FlagSet, flags []limitFlag, c *limitsConfig, file string) error {
	if c == nil {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range flags {
		data := f.config(c)
		if data == nil || given[f.flag] {
			continue
		}
		var s string
		if json.Unmarshal(data, &s) != nil {
			s = string(data) // a number
		}
		if err := f.value.Set(s); err != nil {
			return Usagef("%s: \"gateway\": \"limits\": %q: %v", file, f.key, err)
		}
	}
	return nil
}

type intValue int

func (v *intValue) String() string { return strconv.Itoa(int(*v)) }
func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number, such as 100")
	}
	*v = intValue(n)
	return nil
}

// A boundValue is a count that protects the host from a server, so it
// cannot be lifted: zero is the default, a negative one is refused.
type boundValue int

func (v *boundValue) String() string { return strconv.Itoa(int(*v)) }
func (v *boundValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("want a positive bound, or 0 for the default")
	}
	*v = boundValue(n)
	return nil
}

type durationValue time.Duration

func (v *durationValue) String() string { return time.Duration(*v).String() }

// Set takes a Go duration, or a number of seconds as the config's
// timeouts do.
func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if secs, ferr := strconv.ParseFloat(s, 64); err != nil && ferr == nil && math.Abs(secs) < 1e9 {
		d, err = time.Duration(secs*float64(time.Second)), nil
	}
	if err != nil {
		return fmt.Errorf("want a duration, such as 30s or 10m")
	}
	*v = durationValue(d)
	return nil
}

// A sizeValue is a number of bytes, written as one or with a unit: KiB,
// MiB, GiB (or KB, MB, GB, as powers of 1000).
type sizeValue int64

func (v *sizeValue) String() string {
	n := int64(*v)
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

func (v *sizeValue) Set(s string) error {
	units := []struct {
		name string
		size int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, size := strings.TrimSpace(s), int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.name); ok {
			num, size = strings.TrimSpace(rest), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > 1<<62/size || n < -(1<<62)/size {
		return errors.New("want a size, such as 64MiB or 1048576")
	}
	*v = sizeValue(n * size)
	return nil
}
