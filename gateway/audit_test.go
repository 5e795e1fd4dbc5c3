package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/log/embedded"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/testing/proctest"
	"github.com/mcpbridge/mcpbridge/toolset/config"
)

// An auditLine is a line of the audit log as a reader parses it.
type auditLine struct {
	Time       string  `json:"time"`
	RequestID  string  `json:"request_id"`
	Replica    string  `json:"replica"`
	User       string  `json:"user"`
	Client     string  `json:"client"`
	Method     string  `json:"method"`
	Server     string  `json:"server"`
	Tool       string  `json:"tool"`
	Target     string  `json:"target"`
	Outcome    string  `json:"outcome"`
	Bound      string  `json:"bound"`
	Error      string  `json:"error"`
	DurationMS float64 `json:"duration_ms"`
	BytesIn    int64   `json:"bytes_in"`
	BytesOut   int64   `json:"bytes_out"`
	Arguments  string  `json:"arguments"`
	Session    string  `json:"session"`
	TraceID    string  `json:"trace_id"`
}

// auditLines parses each line of the audit log out, failing the test on
// a line that is not a record.
func auditLines(t *testing.T, out string) []auditLine {
	t.Helper()
	var lines []auditLine
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var l auditLine
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("an audit line that is no record: %v\n%s", err, sc.Text())
		}
		lines = append(lines, l)
	}
	return lines
}

// headers is a transport that sends a bearer token and a request id.
type headers struct{ token, id string }

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	r.Header.Set("X-Request-Id", h.id)
	return http.DefaultTransport.RoundTrip(r)
}

// logs is a LoggerProvider that keeps what is emitted.
type logs struct {
	embedded.LoggerProvider
	mu   sync.Mutex
	recs []otellog.Record
}

func (l *logs) Logger(string, ...otellog.LoggerOption) otellog.Logger { return logger{l: l} }

type logger struct {
	embedded.Logger
	l *logs
}

func (g logger) Emit(_ context.Context, r otellog.Record) {
	g.l.mu.Lock()
	defer g.l.mu.Unlock()
	g.l.recs = append(g.l.recs, r.Clone())
}

func (logger) Enabled(context.Context, otellog.EnabledParameters) bool { return true }

// Every call a client makes, and every request refused, leaves one audit
// record, whichever path served it (the fast path of 2026-07-28, go-sdk's
// sessions of 2025-11-25): who (the user and the client), the server and
// tool, the outcome, the bytes, the request id the balancer or client
// sent, as a JSON line and as an OpenTelemetry log record; arguments are
// left out unless asked.
func TestAnAuditRecordForEveryCallAndRefusal(t *testing.T) {
	a := newUpstream(t, "a")
	var out proctest.Buffer
	emitted := &logs{}
	g := start(t, []config.Server{a.config(true)}, &gateway.Options{
		Audit: &gateway.Audit{Writer: &out, Logs: emitted, Replica: "replica-1"},
		Clients: map[string]gateway.Client{
			"alice": {Token: "tok-alice"},
			"bob":   {Token: "tok-bob", RateLimit: &gateway.RateLimit{Rate: 0.001, Burst: 1}},
		},
	})
	url, _ := serve(t, g)
	for _, v := range versions {
		cs := connect(t, url, v, nil, &http.Client{Transport: headers{"tok-alice", "req-" + v}})
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "hi " + v}})
		if err != nil || text(t, res) != "a: hi "+v {
			t.Fatalf("%s: %v", v, err)
		}
	}
	// bob's burst of 1 is spent by his first request: his call is
	// refused at the endpoint.
	cs := connect(t, url, "2026-07-28", nil, &http.Client{Transport: headers{"tok-bob", "req-refused"}})
	for range 2 {
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": "over"}}); err != nil {
			break
		}
	}
	calls := map[string]auditLine{}
	for _, l := range auditLines(t, out.String()) {
		if l.Method == "tools/call" {
			calls[l.RequestID] = l
		}
		if who := strings.TrimPrefix(l.RequestID, "req-"); l.User != l.Client || (l.User != "alice" && l.User != "bob") || l.Replica != "replica-1" || l.Time == "" || who == l.RequestID {
			t.Errorf("a record that does not say who, where and when: %+v", l)
		}
		if l.Arguments != "" {
			t.Errorf("arguments recorded unasked: %+v", l)
		}
	}
	for _, v := range versions {
		l, ok := calls["req-"+v]
		if !ok {
			t.Errorf("%s: no record of the call with its request id; records: %s", v, out.String())
			continue
		}
		if l.Server != "a" || l.Tool != "a_echo" || l.Outcome != "ok" || l.BytesIn <= 0 || l.BytesOut <= 0 || l.DurationMS < 0 {
			t.Errorf("%s: the call's record: %+v", v, l)
		}
		if v == "2025-11-25" && l.Session == "" {
			t.Errorf("%s: the call's record names no session: %+v", v, l)
		}
	}
	if l := calls["req-refused"]; l.User != "bob" || l.Outcome != "refused" || l.Bound != "RateLimit" || l.Tool != "a_echo" || !strings.Contains(l.Error, "rate limit exceeded") {
		t.Errorf("the refused call's record: %+v", l)
	}
	emitted.mu.Lock()
	defer emitted.mu.Unlock()
	if n := len(auditLines(t, out.String())); len(emitted.recs) != n {
		t.Errorf("%d log records emitted, %d lines written", len(emitted.recs), n)
	}
	ids := map[string]bool{}
	for _, r := range emitted.recs {
		if r.EventName() != "mcpbridge.gateway.request" {
			t.Errorf("a log record of event %q", r.EventName())
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			if kv.Key == "request_id" {
				ids[kv.Value.AsString()] = true
			}
			return true
		})
	}
	if !ids["req-2026-07-28"] || !ids["req-2025-11-25"] || !ids["req-refused"] {
		t.Errorf("the log records' request ids: %v", ids)
	}
}

// A call's arguments are recorded only when asked, and then with the
// servers' credentials, the clients' tokens and anything shaped like a key
// masked, as in every log.
func TestAuditArgumentsAreAskedForAndMasked(t *testing.T) {
	a := newUpstream(t, "a")
	srv := a.config(true)
	srv.Headers = map[string]string{"X-Api-Key": "upstream-secret-4711"}
	var out proctest.Buffer
	g := start(t, []config.Server{srv}, &gateway.Options{
		Audit:   &gateway.Audit{Writer: &out, Arguments: true},
		Clients: map[string]gateway.Client{"alice": {Token: "tok-alice-0123456789"}},
	})
	url, _ := serve(t, g)
	said := "keys upstream-secret-4711 tok-alice-0123456789 sk-abcdefghijkl and https://h.example/p?token=q1w2e3r4t5 plain words"
	for _, v := range versions {
		cs := connect(t, url, v, nil, &http.Client{Transport: headers{"tok-alice-0123456789", "args-" + v}})
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "a_echo", Arguments: map[string]any{"text": said}}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, l := range auditLines(t, out.String()) {
		if l.Method != "tools/call" {
			continue
		}
		n++
		for _, secret := range []string{"upstream-secret-4711", "tok-alice-0123456789", "sk-abcdefghijkl", "q1w2e3r4t5"} {
			if strings.Contains(l.Arguments, secret) || strings.Contains(out.String(), secret) {
				t.Errorf("%s: a secret in the audit log: %s", l.RequestID, l.Arguments)
			}
		}
		if !strings.Contains(l.Arguments, "plain words") || !strings.HasPrefix(l.Arguments, `{"text":`) {
			t.Errorf("%s: the arguments recorded: %q", l.RequestID, l.Arguments)
		}
	}
	if n != 2 {
		t.Errorf("%d records of calls, want 2:\n%s", n, out.String())
	}
}
