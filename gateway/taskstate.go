package gateway

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
)

// A task the gateway follows for a 2026-07-28 client that does not follow
// tasks may ask that client for input ([mcpclient.AskingTask]). The client
// can be asked only in its call's result, so the call returns
// input_required with the task's questions and a request state naming the
// task; the client's next call, with its answers and that state, sends the
// answers to the task and follows it on. The state holds all that call
// needs, so any replica holding the task key takes it, keeping nothing.
//
// A request state a client sends is not trusted, and what it says is not
// the client's to read: one the gateway wrote is statePrefix followed by
// b64(nonce, sealed), the JSON of a taskState sealed with AES-GCM under a
// key derived from the task key (its own label, so nothing else made
// under the task key opens it), the prefix its additional data. The task
// keys rotate it as they rotate task ids: the first seals, any opens. A
// state that begins with the prefix and does not open, was written for
// another client, or for a call of another tool, is refused as invalid
// params in the same words whatever was wrong, before anything reaches the
// server. Any other state is a server's own and goes to the server as it
// came, as before.
const statePrefix = "mcpbridge-task-v1."

// stateKeyLabel derives the key of request states from a task key.
const stateKeyLabel = "mcpbridge gateway task request state v1\x00"

// A taskState is what a request state the gateway writes says: the
// task's server, its client, the gateway's name of the tool called, the
// server's name of it and id of the task, and the keys of the task's
// questions answered before.
type taskState struct {
	Server   string   `json:"s"`
	Client   string   `json:"c"`
	Name     string   `json:"n"`
	Tool     string   `json:"t"`
	Task     string   `json:"i"`
	Answered []string `json:"a,omitempty"`
	// Held, in place of a task, is the call held on this replica for the
	// client's answer to its server's question (held.go).
	Held string `json:"h,omitempty"`
}

// sealState returns the request state of st, under the first key.
func (t taskIDs) sealState(st taskState) (string, error) {
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	aead := stateAEAD(t.keys[0])
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce) // which never fails: it crashes the program instead
	return statePrefix + b64.EncodeToString(aead.Seal(nonce, nonce, payload, []byte(statePrefix))), nil
}

// openState reads a request state sealState wrote with one of the keys,
// for client's call of the tool name. Any other string is refused alike.
func (t taskIDs) openState(s, client, name string) (taskState, bool) {
	body, ok := strings.CutPrefix(s, statePrefix)
	// base64 skips line breaks, even strict: see parse.
	if !ok || strings.ContainsAny(body, "\r\n") {
		return taskState{}, false
	}
	data, err := b64.DecodeString(body)
	if err != nil {
		return taskState{}, false
	}
	// Every key is tried, so that the time taken does not say which one
	// sealed it.
	var payload []byte
	for _, key := range t.keys {
		aead := stateAEAD(key)
		if len(data) < aead.NonceSize() {
			return taskState{}, false
		}
		if p, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], []byte(statePrefix)); err == nil {
			payload = p
		}
	}
	var st taskState
	if payload == nil || json.Unmarshal(payload, &st) != nil || st.Client != client || st.Name != name {
		return taskState{}, false
	}
	return st, true
}

// stateAEAD is the AEAD of request states under the task key: AES-128-GCM
// under a key derived from it.
func stateAEAD(key []byte) cipher.AEAD {
	block, err := aes.NewCipher(sum(key, stateKeyLabel))
	if err != nil {
		panic(err) // sum's 16 bytes are an AES key
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err) // AES has GCM's block size
	}
	return aead
}

// answering returns c, the caller of a call of the tool name, answering
// the task its request state names if the gateway wrote it, and the id of
// the call held for the client's answers it names instead (held.go); or
// the JSON-RPC error refusing a state that claims to be the gateway's and
// is not, or not the client's.
func (g *Gateway) answering(ctx context.Context, c mcpclient.Caller, name string) (mcpclient.Caller, string, error) {
	if !strings.HasPrefix(c.RequestState, statePrefix) {
		return c, "", nil
	}
	st, ok := g.tasks.openState(c.RequestState, callerOf(ctx).name, name)
	if !ok {
		return c, "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tools/call %q: the requestState is not one the gateway gave this client for this tool", name)}
	}
	c.RequestState = ""
	if st.Held != "" {
		return c, st.Held, nil
	}
	c.Answering = &mcpclient.AskingTask{Server: st.Server, Tool: st.Tool, ID: st.Task, Answered: st.Answered}
	return c, "", nil
}

// asking is the result of a call of the tool name whose task asks the
// client a: input_required, with the task's questions and the state that
// names the task, sealed for the calling client.
func (g *Gateway) asking(ctx context.Context, name string, a *mcpclient.AskingTask) (*mcp.CallToolResult, error) {
	state, err := g.tasks.sealState(taskState{Server: a.Server, Client: callerOf(ctx).name, Name: name, Tool: a.Tool, Task: a.ID, Answered: a.Answered})
	if err != nil {
		return nil, err
	}
	res, err := inputRequired(a.Requests, state)
	if err != nil {
		return nil, fmt.Errorf("gateway: server %q: task %q: its input requests: %w", a.Server, a.ID, err)
	}
	return res, nil
}
