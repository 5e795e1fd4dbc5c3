package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbridge/mcpbridge/internal/ctxkey"
	"github.com/mcpbridge/mcpbridge/internal/rawjson"
	"github.com/mcpbridge/mcpbridge/internal/redact"
	"github.com/mcpbridge/mcpbridge/internal/untrusted"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// An Audit is where the gateway writes a record of every request a client
// sends it and of every request it refuses ([Options] Audit): who (the user
// and the client, as a policy knows them), the method, which server and
// tool (or resource, prompt), the outcome, the duration, the bytes in and
// out, and the request's id, which the replicas share with the load
// balancer in front (its X-Request-Id header, made by the gateway when the
// request has none, and answered in the response's), so that the records
// of all replicas and the balancer's log join on it.
//
// A record is made where the gateway logs the request (the same place,
// once), whatever path served it. Secrets are masked as in every log: the
// servers' credentials and the clients' tokens, anything shaped like a key,
// a URL's secret parts.
type Audit struct {
	// Writer gets each record as a line of JSON (written whole, one at a
	// time); nil writes none.
	Writer io.Writer
	// Logs, when not nil, gets each record as an OpenTelemetry log record
	// too, event mcpbridge.gateway.request, in the request's trace: give
	// it the SDK's provider exporting to a collector.
	Logs otellog.LoggerProvider
	// Arguments records a call's arguments (masked, and cut to 16 KiB).
	// They are left out by default: what a user sends a tool may be
	// theirs alone to see.
	Arguments bool
	// Replica names this replica in each record (mcpbridge serve: its host
	// name and port).
	Replica string
}

// maxAuditArguments bounds the arguments a record holds.
const maxAuditArguments = 16 << 10

// maxRequestID bounds an X-Request-Id taken from a client or balancer;
// a longer one, or one that is not printable ASCII, is replaced.
const maxRequestID = 128

// An auditRecord is one line of the audit log.
type auditRecord struct {
	Time       time.Time `json:"time"`
	RequestID  string    `json:"request_id,omitempty"`
	Replica    string    `json:"replica,omitempty"`
	User       string    `json:"user"`   // the caller's name: a token's, or an app's user
	Client     string    `json:"client"` // its entry of Options.Clients: the token's, the app's
	Method     string    `json:"method"`
	Server     string    `json:"server,omitempty"`
	Tool       string    `json:"tool,omitempty"`
	Target     string    `json:"target,omitempty"` // a resource's URI, a prompt's name
	Outcome    string    `json:"outcome"`          // ok, tool_error, error, refused
	Bound      string    `json:"bound,omitempty"`  // what refused it
	Error      string    `json:"error,omitempty"`
	DurationMS float64   `json:"duration_ms"`
	BytesIn    int64     `json:"bytes_in"`
	BytesOut   int64     `json:"bytes_out"`
	Arguments  string    `json:"arguments,omitempty"`
	Session    string    `json:"session,omitempty"`
	TraceID    string    `json:"trace_id,omitempty"`
}

type auditor struct {
	o       Audit
	logger  otellog.Logger // nil without Logs
	secrets redact.Secrets
	log     *slog.Logger // the gateway's, told of a write that failed

	mu     sync.Mutex // one line at a time
	failed bool       // a write failed: said once
}

// newAuditor returns the auditor of o, masking the secrets of cfg's
// servers and the clients' tokens; nil for nil o.
func newAuditor(o *Audit, cfg *config.Config, tokens map[string]string, log *slog.Logger) *auditor {
	if o == nil {
		return nil
	}
	a := &auditor{o: *o, log: log}
	if o.Logs != nil {
		a.logger = o.Logs.Logger(scope)
	}
	var values []string
	for _, sc := range cfg.Servers {
		for _, v := range sc.Headers {
			values = append(values, v)
		}
		for _, v := range sc.Env {
			values = append(values, v)
		}
		a.secrets = a.secrets.WithURL(sc.URL)
	}
	for _, t := range tokens {
		values = append(values, t)
	}
	a.secrets = a.secrets.With(values...)
	return a
}

// mask is text with every secret the auditor knows, and anything shaped
// like one, masked, fit for one line.
func (a *auditor) mask(text string) string {
	return a.secrets.Mask(redact.URLs(redact.Scrub(text)))
}

// An exchange is what the HTTP endpoint knows of a POST that the record of
// its request needs (its id, its bytes, its arguments), and holds that
// record until the answer is written, so that its bytes out are counted.
type exchange struct {
	id   string
	in   int64
	args json.RawMessage // a tools/call's, when Audit.Arguments

	mu      sync.Mutex
	out     int64  // counted from the result, when the endpoint does not count it
	session string // the session of the request, if any
	records []auditRecord
	done    bool // written, or not the endpoint's: a record goes out at once
}

var exchangeKey = ctxkey.New[*exchange]("gateway exchange")

// requestIDKey carries the id of a request that came over go-sdk's
// handlers, read from its headers.
var requestIDKey = ctxkey.New[string]("gateway request id")

// requestID returns the id of the HTTP request r: its X-Request-Id if it
// has a fit one (a load balancer's, a client's), else a new one, set on r
// for go-sdk's handlers to pass on and on w for the client.
func requestID(w http.ResponseWriter, r *http.Request) string {
	id := r.Header.Get("X-Request-Id")
	if !fitRequestID(id) {
		b := make([]byte, 16)
		rand.Read(b)
		id = hex.EncodeToString(b)
		r.Header.Set("X-Request-Id", id)
	}
	w.Header().Set("X-Request-Id", id)
	return id
}

func fitRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := range len(id) {
		if id[i] <= ' ' || id[i] > '~' {
			return false
		}
	}
	return true
}

// begin starts the exchange of the POST r whose body is body, when the
// gateway audits: its request's records wait for its answer (end).
func (a *auditor) begin(r *http.Request, w http.ResponseWriter, id string, body []byte) (*http.Request, *counted, *exchange) {
	if a == nil {
		return r, nil, nil
	}
	ex := &exchange{id: id, in: int64(len(body))}
	if a.o.Arguments {
		ex.args = callArguments(body)
	}
	return r.WithContext(exchangeKey.With(r.Context(), ex)), &counted{ResponseWriter: w}, ex
}

// end writes the records of ex, its answer written to cw.
func (a *auditor) end(ctx context.Context, ex *exchange, cw *counted) {
	if ex == nil {
		return
	}
	ex.mu.Lock()
	records := ex.records
	ex.records, ex.done = nil, true
	ex.mu.Unlock()
	for _, rec := range records {
		rec.BytesOut = cw.n
		a.write(ctx, rec)
	}
}

// callArguments returns the arguments of the tools/call body, if it is one.
func callArguments(body []byte) json.RawMessage {
	if method, _, args := head(body); method == "tools/call" {
		return args
	}
	return nil
}

// callName returns what the request of method in body concerns: a tool's
// or a prompt's name, a resource's URI; read where it is written.
func callName(body []byte, method string) string {
	if m, subject, _ := head(body); m == method {
		return subject
	}
	return ""
}

// head reads the method of the request body, what it concerns (its
// params' name, else uri) and its arguments, where they are written; a
// batch, or a member written with an escape, reads as none.
func head(body []byte) (method, subject string, args json.RawMessage) {
	var name, uri string
	rawjson.Members(body, func(k, v []byte) bool {
		switch string(k) {
		case "method":
			method, _ = rawjson.String(v)
		case "params":
			rawjson.Members(v, func(k, v []byte) bool {
				switch string(k) {
				case "arguments":
					args = v
				case "name":
					name, _ = rawjson.String(v)
				case "uri":
					uri, _ = rawjson.String(v)
				}
				return true
			})
		}
		return true
	})
	if name == "" {
		name = uri
	}
	return method, name, args
}

// A counted is a response writer that counts the bytes written.
type counted struct {
	http.ResponseWriter
	n int64
}

func (c *counted) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// Unwrap lets an http.ResponseController reach the connection.
func (c *counted) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// record makes the record of a request served or refused (logRequest's
// arguments), and writes it, or keeps it for its exchange's end.
func (g *Gateway) record(ctx context.Context, method, subject, client string, d time.Duration, isError bool, err error) {
	a := g.audit
	c := callerOf(ctx)
	if c.name == "" && c.entry == "" {
		if info := auth.TokenInfoFromContext(ctx); info != nil {
			c.name, c.entry = clientName(info), entryName(info)
		} else {
			c.name = client
		}
	}
	rec := auditRecord{
		Time: time.Now().UTC(), Replica: a.o.Replica, User: c.name, Client: c.entry, Method: method,
		DurationMS: float64(d.Microseconds()) / 1000, Outcome: "ok",
	}
	switch method {
	case "tools/call":
		rec.Tool = subject
		g.mu.Lock()
		rec.Server = g.served.serverOf[subject]
		g.mu.Unlock()
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		rec.Target = subject
		g.mu.Lock()
		rec.Server = g.served.resources[subject].server
		g.mu.Unlock()
	case "prompts/get":
		rec.Target = subject
		g.mu.Lock()
		rec.Server = g.served.prompts[subject].server
		g.mu.Unlock()
	default:
		rec.Target = subject
	}
	switch {
	case err != nil:
		rec.Outcome, rec.Bound = outcome(err)
		rec.Error = a.mask(untrusted.Cut(untrusted.Line(err.Error()), 1024))
	case isError:
		rec.Outcome = "tool_error"
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		rec.TraceID = sc.TraceID().String()
	}
	ex := exchangeKey.Value(ctx)
	if ex == nil {
		rec.RequestID = requestIDKey.Value(ctx)
		a.write(ctx, rec)
		return
	}
	rec.RequestID, rec.BytesIn = ex.id, ex.in
	if a.o.Arguments && len(ex.args) > 0 {
		rec.Arguments = a.mask(untrusted.Cut(string(ex.args), maxAuditArguments))
	}
	ex.mu.Lock()
	rec.BytesOut, rec.Session = ex.out, ex.session
	if !ex.done {
		ex.records = append(ex.records, rec)
		ex.mu.Unlock()
		return
	}
	ex.mu.Unlock()
	a.write(ctx, rec)
}

// observed returns ctx carrying what the record of req needs that only
// go-sdk's handler knows: its request id, and, when no exchange of the
// endpoint's carries them (a session's request, a request over stdio), its
// bytes in and arguments, counted from its params; and the function that
// counts its bytes out from its result.
func (g *Gateway) observed(ctx context.Context, req mcp.Request) (context.Context, func(context.Context, mcp.Result)) {
	if g.audit == nil {
		return ctx, func(context.Context, mcp.Result) {}
	}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil {
		ctx = requestIDKey.With(ctx, extra.Header.Get("X-Request-Id"))
	}
	c := caller{}
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		c.name, c.entry = clientName(extra.TokenInfo), entryName(extra.TokenInfo)
	}
	ctx = callerKey.With(ctx, c)
	var session string
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		session = ss.ID()
	}
	if ex := exchangeKey.Value(ctx); ex != nil {
		ex.mu.Lock()
		ex.session = session
		ex.mu.Unlock()
		return ctx, func(context.Context, mcp.Result) {}
	}
	ex := &exchange{id: requestIDKey.Value(ctx), session: session, done: true}
	if p := req.GetParams(); !isNil(p) {
		ex.in = encodedSize(p)
		if call, ok := p.(*mcp.CallToolParamsRaw); ok && g.audit.o.Arguments {
			ex.args = call.Arguments
		}
	}
	ctx = exchangeKey.With(ctx, ex)
	return ctx, func(ctx context.Context, res mcp.Result) {
		var out int64
		if p := passingKey.Value(ctx); p != nil && p.raw != nil {
			out = int64(len(p.raw)) // what passRaw writes in the result's place
		} else if !isNil(res) {
			out = encodedSize(res)
		}
		ex.mu.Lock()
		ex.out = out
		ex.mu.Unlock()
	}
}

// isNil reports whether v is nil or a nil pointer in an interface, as
// go-sdk leaves the params of a request sent without them.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// encodedSize is the size of v in JSON, counted as it is encoded.
func encodedSize(v any) int64 {
	var c countWriter
	_ = json.NewEncoder(&c).Encode(v)
	return max(0, int64(c)-1) // the encoder's newline
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// outcome is what a request that failed with err came to: refused (a
// bound, a rate limit, draining; with what refused it), or error.
func outcome(err error) (string, string) {
	var rpc *jsonrpc.Error
	var endpoint *refusal
	switch {
	case errors.As(err, &endpoint):
		return "refused", http.StatusText(endpoint.status)
	case errors.Is(err, ErrDraining):
		return "refused", "draining"
	case errors.As(err, &rpc) && rpc.Code == CodeRateLimited:
		var data struct {
			Bound      string   `json:"bound"`
			RetryAfter *float64 `json:"retryAfter"`
		}
		_ = json.Unmarshal(rpc.Data, &data)
		if data.Bound == "" && data.RetryAfter != nil {
			data.Bound = "RateLimit"
		}
		return "refused", data.Bound
	case errors.As(err, &rpc) && rpc.Message == ErrDraining.Error():
		return "refused", "draining"
	}
	return "error", ""
}

// write writes rec to the writer and the log provider.
func (a *auditor) write(ctx context.Context, rec auditRecord) {
	if a.o.Writer != nil {
		line, _ := json.Marshal(rec)
		line = append(line, '\n')
		a.mu.Lock()
		_, err := a.o.Writer.Write(line)
		say := err != nil && !a.failed
		a.failed = a.failed || err != nil
		a.mu.Unlock()
		if say {
			a.log.Error("gateway: the audit log cannot be written: records are lost until it can", "err", err)
		}
	}
	if a.logger != nil {
		a.emit(ctx, rec)
	}
}

// emit sends rec as an OpenTelemetry log record.
func (a *auditor) emit(ctx context.Context, rec auditRecord) {
	var r otellog.Record
	r.SetEventName("mcpbridge.gateway.request")
	r.SetTimestamp(rec.Time)
	r.SetBody(attribute.StringValue("gateway: request"))
	r.SetSeverity(otellog.SeverityInfo)
	r.SetSeverityText("INFO")
	if rec.Outcome != "ok" && rec.Outcome != "tool_error" {
		r.SetSeverity(otellog.SeverityWarn)
		r.SetSeverityText("WARN")
	}
	attrs := []attribute.KeyValue{
		attribute.String("request_id", rec.RequestID),
		attribute.String("user", rec.User),
		attribute.String("client", rec.Client),
		attribute.String("method", rec.Method),
		attribute.String("outcome", rec.Outcome),
		attribute.Float64("duration_ms", rec.DurationMS),
		attribute.Int64("bytes_in", rec.BytesIn),
		attribute.Int64("bytes_out", rec.BytesOut),
	}
	for _, kv := range []struct{ k, v string }{
		{"replica", rec.Replica}, {"server", rec.Server}, {"tool", rec.Tool}, {"target", rec.Target},
		{"bound", rec.Bound}, {"error", rec.Error}, {"arguments", rec.Arguments}, {"session", rec.Session},
	} {
		if kv.v != "" {
			attrs = append(attrs, attribute.String(kv.k, kv.v))
		}
	}
	r.AddAttributes(attrs...)
	a.logger.Emit(ctx, r)
}
