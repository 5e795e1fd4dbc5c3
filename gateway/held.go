package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/catalog"
	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A server of protocol 2025-11-25 asks on its own during a call
// (elicitation, sampling), and a client of 2026-07-28 can be asked only
// in its call's result. So the gateway holds such a client's call of such
// a server: the call runs apart from the client's request, and when the
// server asks, the request returns input_required with the question and a
// request state naming the held call (sealed as a task's, taskstate.go);
// the client's next call, with its answer and that state, hands the answer
// to the server and waits on for the result, or the next question. A
// client the server could ask nothing (it declared neither elicitation nor
// sampling) is not held for.
//
// A held call lives in the replica that made it: a retry that reaches
// another is refused, saying so (docs/gateway.md: route a client's
// requests to one replica). It is bounded as calls are: a client holds at
// most [Limits] CallsPerClient and all clients Calls, and a call whose
// client does not answer within SessionIdle, or within the server's call
// timeout, ends; Close ends them all.

// heldCalls are the calls held for their clients' answers.
type heldCalls struct {
	total, perClient int
	within           time.Duration // how long a question waits for its answer

	mu       sync.Mutex
	byID     map[string]*heldCall
	byClient map[string]int
	closed   bool
	wg       sync.WaitGroup // the calls' goroutines
}

// A heldCall is a call of a client's that its server may ask during.
type heldCall struct {
	id, client, name string
	cancel           context.CancelFunc
	ask              chan *question  // the server's questions, one at a time
	done             chan callResult // the call's end
	keys             int             // the questions asked so far

	mu      sync.Mutex
	waiting *question   // asked of the client, not yet answered
	timer   *time.Timer // ends the call when its client does not answer
}

// A question is one request of the server's, waiting for its answer.
type question struct {
	key    string
	req    mcp.InputRequest
	answer chan mcp.InputResponse
}

type callResult struct {
	raw json.RawMessage
	res *mcp.CallToolResult
	err error
}

// mayHold reports whether the call of c, a client's, of a tool of server
// is held: the client is asked only in results, the server asks on its
// own, and the client declared something the server may ask of it.
func (g *Gateway) mayHold(server string, c mcpclient.Caller) bool {
	if _, ok := c.Relay.(mcpclient.ResultOnly); !ok || c.Capabilities == nil ||
		c.Capabilities.Elicitation == nil && c.Capabilities.Sampling == nil {
		return false
	}
	p, ok := g.ts.Provider(server)
	return ok && p.ProtocolVersion() < statelessVersion
}

// hold makes the call of c, for the client of ctx, apart from its request,
// and waits for its end or its first question ([Gateway.await]).
func (g *Gateway) hold(ctx context.Context, snap *catalog.Snapshot, c mcpclient.Caller, name string, args json.RawMessage) (json.RawMessage, *mcp.CallToolResult, error) {
	client := callerOf(ctx).name
	h, err := g.held.add(client, name)
	if err != nil {
		return nil, nil, err
	}
	// The call keeps the request's values (its client, its trace), not
	// its end: it outlives the request when the server asks.
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	stop := context.AfterFunc(g.ctx, cancel)
	c.Relay = heldRelay{h}
	g.held.wg.Go(func() {
		defer stop()
		raw, res, err := snap.CallRaw(mcpclient.WithCaller(callCtx, c), name, args)
		h.done <- callResult{raw, res, err}
		cancel()
	})
	return g.await(ctx, h)
}

// await waits for the held call h to end, or to ask its client, for the
// request of ctx: its result; input_required with the question and the
// state that names h; or, when the request ends first, the call ended.
func (g *Gateway) await(ctx context.Context, h *heldCall) (json.RawMessage, *mcp.CallToolResult, error) {
	select {
	case r := <-h.done:
		g.held.remove(h)
		return r.raw, r.res, r.err
	case q := <-h.ask:
		h.asked(q, g.held.within, func() { g.held.end(h) })
		state, err := g.tasks.sealState(taskState{Client: h.client, Name: h.name, Held: h.id})
		if err != nil {
			g.held.end(h)
			return nil, nil, err
		}
		res, err := inputRequired(mcp.InputRequestMap{q.key: q.req}, state)
		return nil, res, err
	case <-ctx.Done():
		g.held.end(h)
		return nil, nil, ctx.Err()
	}
}

// answered hands the client's answers to the question of the held call
// id and waits on ([Gateway.await]); a call this replica does not hold,
// or answers without the question's, are refused as invalid params.
func (g *Gateway) answered(ctx context.Context, id, name string, answers mcp.InputResponseMap) (json.RawMessage, *mcp.CallToolResult, error) {
	h := g.held.get(id)
	if h == nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"tools/call %q: the call the requestState answers has ended, or is held by another replica of the gateway (a server of protocol 2025-11-25 asks during the call: route a client's requests to one replica)", name)}
	}
	if err := h.answer(answers); err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tools/call %q: %v", name, err)}
	}
	return g.await(ctx, h)
}

// asked notes that q waits for its client's answer, which must come
// within d, else timeout is called.
func (h *heldCall) asked(q *question, d time.Duration, timeout func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.waiting = q
	if d > 0 {
		h.timer = time.AfterFunc(d, timeout)
	}
}

// answer gives the question waiting its answer among answers.
func (h *heldCall) answer(answers mcp.InputResponseMap) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.waiting
	if q == nil {
		return fmt.Errorf("no question of the call waits for an answer")
	}
	a, ok := answers[q.key]
	if !ok || a == nil {
		return fmt.Errorf("inputResponses has no answer to %q", q.key)
	}
	if h.timer != nil {
		h.timer.Stop()
	}
	h.waiting, h.timer = nil, nil
	q.answer <- a // buffered: the server's request takes it, or has ended
	return nil
}

// put asks the client of h req, for the server's request of ctx, and
// returns its answer once its next call brings it.
func (h *heldCall) put(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	h.mu.Lock()
	h.keys++
	q := &question{key: "q" + strconv.Itoa(h.keys), req: req, answer: make(chan mcp.InputResponse, 1)}
	h.mu.Unlock()
	select {
	case h.ask <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-q.answer:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A heldRelay asks a held call's client what its server asks on its own,
// and leaves a question in the result to the client, as
// [mcpclient.ResultOnly] does.
type heldRelay struct{ h *heldCall }

func (r heldRelay) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if !mcpclient.AskedOnItsOwn(ctx) {
		return nil, mcpclient.ErrInputRequired
	}
	a, err := r.h.put(ctx, p)
	if err != nil {
		return nil, err
	}
	res, ok := a.(*mcp.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("the client answered an elicitation with a %T", a)
	}
	return res, nil
}

func (r heldRelay) CreateMessageWithTools(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	if !mcpclient.AskedOnItsOwn(ctx) {
		return nil, mcpclient.ErrInputRequired
	}
	a, err := r.h.put(ctx, p)
	if err != nil {
		return nil, err
	}
	res := new(mcp.CreateMessageWithToolsResult)
	data, err := json.Marshal(a)
	if err == nil {
		err = json.Unmarshal(data, res)
	}
	if err != nil {
		return nil, fmt.Errorf("the client's answer to a sampling request: %w", err)
	}
	return res, nil
}

func (heldRelay) NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error {
	return nil
}

// add holds a call of the tool name for client, within the bounds.
func (t *heldCalls) add(client, name string) (*heldCall, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return nil, ErrDraining
	case t.perClient > 0 && t.byClient[client] >= t.perClient:
		return nil, &jsonrpc.Error{Code: CodeRateLimited, Message: fmt.Sprintf("%d calls held for %s's answers to their servers' questions, the bound (CallsPerClient, %d)", t.byClient[client], who(client), t.perClient)}
	case t.total > 0 && len(t.byID) >= t.total:
		return nil, &jsonrpc.Error{Code: CodeRateLimited, Message: fmt.Sprintf("%d calls held for their clients' answers, the bound (Calls, %d)", len(t.byID), t.total)}
	}
	id := make([]byte, 16)
	rand.Read(id) // which never fails: it crashes the program instead
	h := &heldCall{id: b64.EncodeToString(id), client: client, name: name, ask: make(chan *question), done: make(chan callResult, 1)}
	if t.byID == nil {
		t.byID, t.byClient = map[string]*heldCall{}, map[string]int{}
	}
	t.byID[h.id] = h
	t.byClient[client]++
	return h, nil
}

// get returns the held call id, or nil.
func (t *heldCalls) get(id string) *heldCall {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// remove forgets h, which ended.
func (t *heldCalls) remove(h *heldCall) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID[h.id] != h {
		return
	}
	delete(t.byID, h.id)
	if t.byClient[h.client]--; t.byClient[h.client] == 0 {
		delete(t.byClient, h.client)
	}
}

// end ends h: the call is cancelled, on the server too, and forgotten.
func (t *heldCalls) end(h *heldCall) {
	h.cancel()
	t.remove(h)
}

// close ends every held call and waits for their goroutines.
func (t *heldCalls) close() {
	t.mu.Lock()
	t.closed = true
	calls := make([]*heldCall, 0, len(t.byID))
	for _, h := range t.byID {
		calls = append(calls, h)
	}
	t.mu.Unlock()
	for _, h := range calls {
		t.end(h)
	}
	t.wg.Wait()
}

// inputRequired is a result that asks the client requests, with state
// for its next call: decoded from the wire, as go-sdk keeps a result's
// resultType unexported (the fast path writes it as decoded).
func inputRequired(requests mcp.InputRequestMap, state string) (*mcp.CallToolResult, error) {
	data, err := json.Marshal(struct {
		ResultType    string              `json:"resultType"`
		InputRequests mcp.InputRequestMap `json:"inputRequests"`
		RequestState  string              `json:"requestState"`
	}{"input_required", requests, state})
	res := new(mcp.CallToolResult)
	if err == nil {
		err = json.Unmarshal(data, res)
	}
	return res, err
}
