package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/mcpbridge/mcpbridge/toolset/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/policy"
	"github.com/mcpbridge/mcpbridge/toolset"
)

// tokenEnv holds a bearer token for the gateway's endpoint: a secret,
// so never a flag (a command line is visible to every user of the machine).
const tokenEnv = "MCPBRIDGE_TOKEN"

var serveCmd = &Command{
	Name:    "serve",
	NoArgs:  true,
	Usage:   "serve [--http ADDR [--allow-remote] [--token-file FILE] [--oauth-issuer URL --oauth-resource URL] [--tls-cert FILE --tls-key FILE] [--status-http ADDR]] [--store URL] [--audit FILE] [--task-key-file FILE] [--disclosure] [--allow PATTERN] [--deny PATTERN] [target]",
	Summary: "Serve the servers' tools, resources and prompts as one MCP server (a gateway), over stdio or streamable HTTP.",
	Examples: `  mcpbridge serve --config mcp.json                         # stdio: a desktop host's only server
  mcpbridge serve --config mcp.json --http 127.0.0.1:8080   # http://127.0.0.1:8080/mcp, /healthz, /readyz
  mcpbridge serve --config mcp.json --http :8080 --allow-remote --token-file tokens.txt
  mcpbridge serve --config mcp.json --http :8080 --allow-remote \
      --oauth-issuer https://auth.example --oauth-resource https://mcp.example/mcp
  mcpbridge serve --config mcp.json --deny 'delete_*' --disclosure
  mcpbridge serve --config mcp.json --http :8443 --allow-remote --token-file tokens.txt \
      --tls-cert tls.crt --tls-key tls.key --status-http 127.0.0.1:9090

Over HTTP the gateway speaks both protocol generations: 2026-07-28 without
sessions (any replica answers any request: put N behind a load balancer)
and 2025-11-25 with sessions. A client may ask for find_tools and call_tool
instead of the whole catalog with ?disclosure=1.

A task the gateway hands a client has an id bound to the server, the
client and the server's own id by a key, random per process unless
--task-key-file gives one of 32 bytes or more:
  openssl rand -base64 32 > task.key
Replicas behind a load balancer are given the same file, or share a store
(--store) that keeps a key for them, to route each other's tasks; without
either, and across a restart, a task id is refused as unknown. The file may hold several keys, one a line: the first signs new
ids, and an id made under any of them is taken. To rotate the key, give
every replica each step before the next: a new key added on the second
line (openssl rand -base64 32 >> task.key), then moved to the first, then
the old line dropped once its tasks are done.

A non-loopback address needs --allow-remote and bearer tokens (a file of
lines "NAME TOKEN", --token-file, or one token in $` + tokenEnv + `) or
OAuth: JWT access tokens of --oauth-issuer whose audience is
--oauth-resource, the gateway's URL as clients reach it. A token names its
client and is never sent to a server, unless "passthrough" names it.

The config file may hold a "gateway" object beside "mcpServers":
  {"gateway": {"disclosure": true, "allow": ["*"], "deny": ["delete_*"],
    "oauth": {"issuer": "https://auth.example", "resource": "https://mcp.example/mcp", "scopes": ["mcp"]},
    "rateLimit": {"rate": 5, "burst": 10},
    "clients": {"ci": {"allow": ["github_*"], "rateLimit": {"rate": 1}}},
    "passthrough": ["github"]}}
A deny pattern matches any name of a tool (its own name, also as the
vendor rewrites it); an allow matches the names a client is served, which
begin with the server's: "github_*" is server github's tools alone.
"rateLimit" is requests a second per client (a refusal is JSON-RPC error
-31429, with the wait); "clients" are named by their token's name, or a
JWT's client_id (else azp, else sub): behind OAuth each user of an app
(its sub, or the claim of --oauth-user-claim, "oauth": {"userClaim"}) is
a client of its own, with the app's entry; "passthrough" lists the
servers that are sent the client's own token. A policy (--allow, --deny, a client's
own) judges resources, templates and prompts as tools, by the names they
are served under ({server}_{name}): a client allowed nothing of a server
sees nothing of it, its instructions and log included.

With --tls-cert and --tls-key (or "gateway": {"tls": {"cert": FILE, "key":
FILE}}, relative to the config's directory) the endpoint is HTTPS, HTTP/2
offered, and the pair is read again when its files change (a cert-manager
renewal), within a second. Terminate TLS at an ingress or load balancer
instead when one is in front anyway (it holds the certificate, and the
gateway listens in clear on a network only it reaches); here, when clients
reach the gateway directly, so that no token crosses a network in clear.

/healthz and /readyz need no token (a prober has none), pass the Origin and
Host checks of /mcp, and say no more than ok, ready, not ready or
draining. --status-http serves them again on a loopback address, /readyz
with each server's name and state: the operator's view, which a client
must not have (kubectl port-forward reaches it in a pod).

Every bound of the gateway (sessions, requests served, request bytes held,
a request's JSON, connections, listings, the queues of what a client has
not read and of what a server said) has a flag below and a key of "limits" in
the "gateway" object, such as
  {"gateway": {"limits": {"sessionsPerClient": 20, "sessionIdle": "10m", "requestBytes": "32MiB"}}}
A flag wins over the config; a negative value lifts a bound. A session or
request past a bound is refused with JSON-RPC error -31429 naming it;
bytes past theirs with 429 or 503 and Retry-After.

Replicas behind one load balancer act as one with a shared store: Redis 7
or Valkey, --store redis://host:6379/0 (a URL with a password in
$` + storeEnv + ` or the config's "store"). Each client's rate limit,
sessions and calls in flight then hold across the replicas, and the
replicas share their task key there; the other bounds stay each replica's
(its memory). Each operation on the store is bounded (--store-timeout);
while the store does not answer, each replica holds its share of the
per-client limits (the figure over the replicas it last saw), stays
ready, and says so in /readyz ("store": "unreachable"). Sessions of
2025-11-25 live in the replica that opened them: deploy/haproxy.cfg
routes each home by its Mcp-Session-Id.

--audit FILE (or - for stdout, or "audit": {"file": FILE}) writes a JSON
line for every request served or refused: who, the server and tool, the
outcome, the duration, the bytes, and the request id (X-Request-Id, made
when the request has none), which joins the replicas' records and the
load balancer's log; --audit-arguments adds each call's arguments, masked.
With a collector configured for logs (OTEL_EXPORTER_OTLP_ENDPOINT or
OTEL_LOGS_EXPORTER=otlp) the records are exported there too.

SIGTERM drains: calls in flight finish (within --drain), new requests are
refused and /readyz answers 503.`,
	Setup: func(fs *flag.FlagSet) RunFunc {
		t := AddTarget(fs)
		t.AddVendor(fs, "", "the `VENDOR` whose naming rules tool names follow (default anthropic: names as the servers give them, namespaced)")
		t.AddMaxDescription(fs)
		addr := fs.String("http", "", "serve streamable HTTP at /mcp on `ADDR` (host:port, loopback unless --allow-remote) instead of stdio")
		remote := fs.Bool("allow-remote", false, "let --http bind a non-loopback address; needs bearer tokens")
		tokenFile := fs.String("token-file", "", "require a bearer token from `FILE` (lines \"NAME TOKEN\") on every HTTP request")
		taskKeyFile := fs.String("task-key-file", "", "bind the ids of the tasks handed to clients with the keys in `FILE`, one a line of 32 bytes or more, the same for every replica: the first signs new ids, every one verifies (a key rotates); without it, a random key of the process")
		disclosure := fs.Bool("disclosure", false, "serve find_tools and call_tool instead of the whole catalog, to every client")
		var allow, deny, origins, hosts multi
		fs.Var(&allow, "allow", "list and serve only tools matching `PATTERN` (repeatable)")
		fs.Var(&deny, "deny", "hide and refuse tools matching `PATTERN` (repeatable)")
		fs.Var(&origins, "allow-origin", "let browsers on `ORIGIN` (scheme://host:port) call the endpoint (repeatable)")
		fs.Var(&hosts, "allow-host", "accept only requests whose Host is `HOST` (repeatable)")
		var oauth oauthConfig
		fs.StringVar(&oauth.Issuer, "oauth-issuer", "", "take JWT access tokens of the authorization server `URL` (needs --oauth-resource)")
		fs.StringVar(&oauth.Resource, "oauth-resource", "", "the gateway's own `URL` as clients reach it (https://host/mcp): the audience tokens must name")
		fs.Var((*multi)(&oauth.Scopes), "oauth-scope", "require `SCOPE` of every token (repeatable)")
		fs.StringVar(&oauth.UserClaim, "oauth-user-claim", "", "tell a token's user by the `CLAIM` (default sub): each user of an app is a client of its own")
		drain := fs.Duration("drain", gateway.DefaultDrainTimeout, "on SIGTERM, wait up to `DURATION` for calls in flight")
		tlsCert, tlsKey := addTLSFlags(fs)
		statusAddr := fs.String("status-http", "", "serve /healthz and /readyz with each server's state on `ADDR` (loopback only)")
		logFormat := fs.String("log", "text", "log `FORMAT` on stderr: text or json")
		store := fs.String("store", "", "share the per-client limits and the task key with the other replicas in the Redis or Valkey at `URL` (redis://host:6379/0; a password goes in $"+storeEnv+" or the config)")
		auditFile := fs.String("audit", "", "write a record of every request and refusal to `FILE` (- for stdout), as JSON lines")
		auditArgs := fs.Bool("audit-arguments", false, "record each call's arguments in the audit log (masked)")
		var limits gateway.Limits
		limitFlags := limitFlags(fs, &limits)
		return func(ctx context.Context, _, serverCmd []string, s *Streams) error {
			tokens, err := readTokens(*tokenFile)
			if err != nil {
				return err
			}
			taskKey, oldTaskKeys, err := readTaskKeys(*taskKeyFile)
			if err != nil {
				return err
			}
			section, err := gatewaySection(t)
			if err != nil {
				return err
			}
			opts := &gateway.Options{AllowedOrigins: origins, AllowedHosts: hosts, DrainTimeout: *drain,
				Disclosure: *disclosure || section.Disclosure}
			if err := section.endpointOptions(opts, oauth, tokens); err != nil {
				return err
			}
			if taskKey != nil {
				opts.TaskKeys = append([][]byte{taskKey}, oldTaskKeys...)
			}
			certPath, keyPath, err := tlsFiles(*tlsCert, *tlsKey, section.TLS, t.config)
			if err != nil {
				return err
			}
			if certPath != "" && *addr == "" {
				return Usagef("TLS is for --http; over stdio there is no connection to encrypt")
			}
			if err := applyLimits(fs, limitFlags, section.Limits, t.config); err != nil {
				return err
			}
			protected := len(tokens) > 0 || oauth.Issuer != "" || section.OAuth != nil
			if _, _, err := net.SplitHostPort(*addr); *addr != "" && err != nil {
				return Usagef("--http %s: want host:port, such as 127.0.0.1:8080", *addr)
			}
			if *addr != "" && !isLoopback(*addr) {
				switch {
				case !*remote:
					return Usagef("--http %s is not a loopback address: add --allow-remote if it is meant, with bearer tokens or OAuth", *addr)
				case !protected:
					return Usagef("--allow-remote needs bearer tokens (--token-file FILE or $%s) or OAuth (--oauth-issuer)", tokenEnv)
				}
			}
			if *addr == "" {
				for _, f := range []struct {
					name string
					set  bool
				}{{"--allow-remote", *remote}, {"--allow-origin", len(origins) > 0}, {"--allow-host", len(hosts) > 0}} {
					if f.set {
						return Usagef("%s goes with --http: over stdio there is no endpoint", f.name)
					}
				}
			} else if *remote && isLoopback(*addr) {
				return Usagef("--allow-remote lets --http bind an address that is not loopback; %s is loopback", *addr)
			}
			if protected && *addr == "" {
				return Usagef("bearer tokens and OAuth protect --http; over stdio there is no endpoint to protect")
			}
			log, err := gatewayLogger(s, *logFormat, t.verbose)
			if err != nil {
				return err
			}
			allow, deny = append(allow, section.Allow...), append(deny, section.Deny...)
			if len(allow)+len(deny) > 0 {
				pol, err := policy.New(policy.Config{Allow: allow, Deny: deny})
				if err != nil {
					return Usagef("%v", err)
				}
				opts.Policy = pol
			}
			opts.Logger, opts.Limits = log, limits
			if opts.Store, err = storeURL(*store, section.Store); err != nil {
				return err
			}

			var ln, statusLn net.Listener
			var certs *certFiles
			if *addr != "" {
				// Before the servers start: an address in use, or a
				// certificate that does not load, is said at once.
				if certPath != "" {
					if certs, err = loadCertFiles(certPath, keyPath, log); err != nil {
						return &exitError{code: exitUsage, err: err}
					}
				}
				if ln, err = listen(*addr); err != nil {
					return err
				}
				defer ln.Close()
			}
			closeAudit, err := auditOptions(opts, *auditFile, *auditArgs, section.Audit, t.config, ln, s)
			if err != nil {
				return err
			}
			defer closeAudit()
			if *statusAddr != "" {
				if statusLn, err = listenStatus(*statusAddr); err != nil {
					return err
				}
				defer statusLn.Close()
			}
			var g *gateway.Gateway
			t.logged = true // the log says each server's start and failure once
			ts, _, err := t.startWith(ctx, serverCmd, s, func(ctx context.Context, cfg *config.Config, tsOpts *toolset.Options) (*toolset.Toolset, error) {
				var err error
				// The gateway's logger, not the command line's quiet one,
				// tells an operator of the servers' lifecycle.
				tsOpts.Logger = log
				opts.Toolset = tsOpts
				g, err = gateway.Start(ctx, cfg, opts)
				if err != nil {
					return nil, err
				}
				return g.Toolset(), nil
			})
			if err != nil {
				return err
			}
			defer t.Close(ts)
			defer g.Close() // first: its sessions and key fetch, then the toolset again (a no-op)
			var status net.Addr
			if statusLn != nil {
				defer serveStatus(g, statusLn)()
				status = statusLn.Addr()
			}
			if ln == nil {
				if status != nil {
					fmt.Fprintf(s.Err, "mcpbridge gateway: status at http://%s/readyz\n", status)
				}
				return serveStdio(ctx, g, log)
			}
			return serveHTTP(ctx, g, ln, limits, certs, status, log, s)
		}
	},
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// readTokens reads the bearer tokens of path (lines "NAME TOKEN", # for a
// comment) and $MCPBRIDGE_TOKEN (client "default").
func readTokens(path string) (map[string]string, error) {
	tokens := map[string]string{}
	if tok := os.Getenv(tokenEnv); tok != "" {
		tokens["default"] = tok
	}
	if path == "" {
		return tokens, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("--token-file: %w", err)}
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			// The line is not echoed: it may hold a token.
			return nil, Usagef("--token-file %s: line %d: want \"NAME TOKEN\"", path, i+1)
		}
		tokens[f[0]] = f[1]
	}
	return tokens, nil
}

// readTaskKeys reads the keys of the gateway's task ids from path, one a
// line, the whitespace around each trimmed and blank lines skipped: the
// key of the first line, which signs new ids, and those of the others,
// which still verify ([gateway.Options] TaskKeys). It refuses a file it cannot
// read, one with no key, or a key shorter than [gateway.TaskKeySize],
// naming its line, never quoting the file. No path is no key: the gateway
// makes a random one.
func readTaskKeys(path string) (key []byte, previous [][]byte, err error) {
	if path == "" {
		return nil, nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pathErr *iofs.PathError
		if errors.As(err, &pathErr) {
			err = pathErr.Err // the path is said once, after the flag
		}
		return nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("--task-key-file %s: %w", path, err)}
	}
	var keys [][]byte
	for i, line := range bytes.Split(data, []byte("\n")) {
		k := bytes.TrimSpace(line)
		if len(k) == 0 {
			continue
		}
		if len(k) < gateway.TaskKeySize {
			return nil, nil, Usagef("--task-key-file %s: line %d: a key of %d bytes: want %d or more", path, i+1, len(k), gateway.TaskKeySize)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, nil, Usagef("--task-key-file %s: no key: want one of %d bytes or more a line", path, gateway.TaskKeySize)
	}
	return keys[0], keys[1:], nil
}

// A gatewayConfig is the "gateway" object of a config file.
type gatewayConfig struct {
	Disclosure bool     `json:"disclosure"`
	Allow      []string `json:"allow"`
	Deny       []string `json:"deny"`

	// The endpoint's OAuth, rate limit and clients (gatewayauth.go).
	OAuth       *oauthConfig              `json:"oauth"`
	RateLimit   *gateway.RateLimit        `json:"rateLimit"`
	Clients     map[string]gateway.Client `json:"clients"`
	Passthrough []string                  `json:"passthrough"`

	// The gateway's bounds (gateway.Limits), each also a flag of serve.
	Limits *limitsConfig `json:"limits"`

	// The endpoint's certificate (tlsfiles.go).
	TLS *tlsConfig `json:"tls"`

	// The replicas' shared store and the audit log (gatewaystore.go).
	Store string       `json:"store"`
	Audit *auditConfig `json:"audit"`
}

// A limitsConfig is the "limits" object of a config file's "gateway": one
// key per field of [gateway.Limits], durations as Go durations ("30m").
type limitsConfig struct {
	// Sessions, calls, request bytes and connections, each also a flag
	// (gatewaylimits.go), kept as written until the flags are known.
	Sessions              json.RawMessage `json:"sessions"`
	SessionsPerClient     json.RawMessage `json:"sessionsPerClient"`
	SessionIdle           json.RawMessage `json:"sessionIdle"`
	Calls                 json.RawMessage `json:"calls"`
	CallsPerClient        json.RawMessage `json:"callsPerClient"`
	CallQueue             json.RawMessage `json:"callQueue"`
	ServerCalls           json.RawMessage `json:"serverCalls"`
	RequestBytes          json.RawMessage `json:"requestBytes"`
	RequestBytesPerClient json.RawMessage `json:"requestBytesPerClient"`
	ResultBytes           json.RawMessage `json:"resultBytes"`
	ResultBytesPerClient  json.RawMessage `json:"resultBytesPerClient"`
	RequestDepth          json.RawMessage `json:"requestDepth"`
	RequestValues         json.RawMessage `json:"requestValues"`
	BodyRead              json.RawMessage `json:"bodyRead"`
	Connections           json.RawMessage `json:"connections"`
	ConnectionIdle        json.RawMessage `json:"connectionIdle"`
	ListingItems          json.RawMessage `json:"listingItems"`
	ListingBytes          json.RawMessage `json:"listingBytes"`
	ClientQueueBytes      json.RawMessage `json:"clientQueueBytes"`
	ServerQueueBytes      json.RawMessage `json:"serverQueueBytes"`
	StoreTimeout          json.RawMessage `json:"storeTimeout"`
}

// gatewaySection reads the "gateway" object of the target's config file,
// if it has one.
func gatewaySection(t *Target) (gatewayConfig, error) {
	var c gatewayConfig
	if t.config == "" {
		return c, nil
	}
	data, err := os.ReadFile(t.config)
	if err != nil {
		return c, &exitError{code: exitUsage, err: err}
	}
	var top struct {
		Gateway *json.RawMessage `json:"gateway"`
	}
	if json.Unmarshal(data, &top) != nil || top.Gateway == nil {
		return c, nil // catalog.Load reports a file it cannot read
	}
	dec := json.NewDecoder(strings.NewReader(string(*top.Gateway)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, &exitError{code: exitUsage, err: fmt.Errorf("%s: \"gateway\": %w", t.config, err)}
	}
	return c, nil
}

func gatewayLogger(s *Streams, format string, verbose bool) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if verbose {
		opts.Level = slog.LevelDebug
	}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(s.Err, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(s.Err, opts)), nil
	}
	return nil, Usagef("--log %q: want text or json", format)
}

// serveStdio serves one client on stdin and stdout until it goes away, or
// until a stop signal, which drains first.
func serveStdio(ctx context.Context, g *gateway.Gateway, log *slog.Logger) error {
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	done := make(chan error, 1)
	go func() { done <- g.Run(run, &mcp.StdioTransport{}) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	drainErr := g.Shutdown(context.WithoutCancel(ctx))
	if drainErr != nil {
		log.Warn("gateway: drain incomplete", "err", drainErr)
	}
	stop()
	<-done
	return drainErr
}

// serveHTTP serves g's endpoints on ln, over TLS with certs if not nil,
// until a stop signal, then drains: calls in flight finish, new requests
// are refused, and the listener closes. Its first line names the endpoint,
// and the status address if there is one.
func serveHTTP(ctx context.Context, g *gateway.Gateway, ln net.Listener, l gateway.Limits, certs *certFiles, status net.Addr, log *slog.Logger, s *Streams) error {
	b, scheme, also := serverBounds{conns: l.Connections, idle: l.ConnectionIdle}, "http", ""
	if certs != nil {
		b.tls, scheme = certs.config(), "https"
	}
	if status != nil {
		also = fmt.Sprintf("; status: http://%s/readyz", status)
	}
	return serveUntilStopped(ctx, ln, g.Handler(), b, s, func(a net.Addr) string {
		return fmt.Sprintf("mcpbridge gateway: %s://%s/mcp (health: /healthz, /readyz%s)", scheme, a, also)
	}, func(ctx context.Context) error {
		err := g.Shutdown(ctx) // which says it drains
		if err != nil {
			log.Warn("gateway: drain incomplete", "err", err)
		}
		return err
	})
}
