package gateway

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// TaskKeySize is the least length, in bytes, of a key given to
// [WithTaskKey], and the length of the key Start makes without one.
const TaskKeySize = 32

// WithTaskKey sets the key that binds the id of a task the gateway hands a
// client (the 2026-07-28 tasks extension) to the server that runs it, the
// client whose call it is and the server's own id: an id is good only at a
// gateway holding the key it was made with, so a client cannot rewrite
// another's id into one of its own. Replicas behind one load balancer must
// share the key to route each other's tasks. Each key must be at least
// [TaskKeySize] bytes, of which it is the secret: Start refuses a shorter
// one. Nil, the default, is a random key of [TaskKeySize] bytes made by
// Start, so one gateway is safe without configuration, but its task ids do
// not survive a restart and no other replica takes them.
//
// The previous keys rotate the key without losing the tasks in flight:
// key signs every new id, and an id made under key or any of previous is
// taken. Replicas rotate in three steps, each given to all of them before
// the next: the new key added as a previous one (every replica takes its
// ids before any makes one), then the new key as key and the old as a
// previous one, then the old one dropped once its tasks are done. An id
// made under a key no longer given is a task not found. Previous keys
// without a key are refused by Start.
func WithTaskKey(key []byte, previous ...[]byte) Option {
	return func(o *options) {
		o.taskKeys = [][]byte{bytes.Clone(key)}
		for _, k := range previous {
			o.taskKeys = append(o.taskKeys, bytes.Clone(k))
		}
	}
}

func (o *options) checkTaskKey() error {
	for i, k := range o.taskKeys {
		switch n := len(k); {
		case i == 0 && n == 0 && len(o.taskKeys) > 1:
			return fmt.Errorf("gateway: WithTaskKey: previous keys without a key")
		case i == 0 && n > 0 && n < TaskKeySize:
			return fmt.Errorf("gateway: WithTaskKey: a key of %d bytes: want %d or more", n, TaskKeySize)
		case i > 0 && n < TaskKeySize:
			return fmt.Errorf("gateway: WithTaskKey: previous key %d: a key of %d bytes: want %d or more", i, n, TaskKeySize)
		}
	}
	return nil
}

// A taskHandle is what the id of a task, as the gateway's client knows it,
// says: the name of the server that runs the task, of the client whose
// call it is, and the server's own id, so that any replica sends
// tasks/get, tasks/update and tasks/cancel to the right server, keeping
// nothing, and refuses them from another client presenting the id.
type taskHandle struct{ server, client, id string }

// taskIDs writes the ids of the tasks the gateway hands its clients and
// reads them back, under the gateway's task keys ([WithTaskKey]): the
// first writes, any reads. An id is "b64(server).b64(client).b64(mac).id",
// base64url without padding, the server's id last as it came (it may hold
// dots); the MAC, HMAC-SHA256 cut to macSize bytes, is over the three with
// their lengths, so no part can be changed, or moved into another, without
// the key.
type taskIDs struct{ keys [][]byte }

// macSize is the length of a task id's MAC in bytes: 128 bits, which a
// client forging an id can only guess, one request at a time.
const macSize = 16

// taskMACLabel begins every MAC, so that a key an operator also uses
// elsewhere cannot be made to sign a task id there.
const taskMACLabel = "mcpbridge gateway task id v1\x00"

var b64 = base64.RawURLEncoding.Strict()

// newTaskIDs returns the task ids of keys, the first writing, or of a
// random key if there is none or the first is empty.
func newTaskIDs(keys ...[]byte) taskIDs {
	if len(keys) == 0 || len(keys[0]) == 0 {
		key := make([]byte, TaskKeySize)
		rand.Read(key) // which never fails: it crashes the program instead
		keys = [][]byte{key}
	}
	return taskIDs{keys}
}

// format returns the id of the task h, under the first key.
func (t taskIDs) format(h taskHandle) string {
	return b64.EncodeToString([]byte(h.server)) + "." + b64.EncodeToString([]byte(h.client)) + "." +
		b64.EncodeToString(mac(t.keys[0], h)) + "." + h.id
}

// parse reads an id format made with one of the keys. Any other string,
// whatever is wrong with it, is refused alike.
func (t taskIDs) parse(s string) (taskHandle, bool) {
	parts := strings.SplitN(s, ".", 4)
	// base64 skips line breaks, even strict: an id with one would be
	// taken as the id without it, a second name for one task.
	if len(parts) != 4 || parts[3] == "" || strings.ContainsAny(s[:len(s)-len(parts[3])], "\r\n") {
		return taskHandle{}, false
	}
	server, err1 := b64.DecodeString(parts[0])
	client, err2 := b64.DecodeString(parts[1])
	got, err3 := b64.DecodeString(parts[2])
	h := taskHandle{string(server), string(client), parts[3]}
	if err1 != nil || err2 != nil || err3 != nil {
		return taskHandle{}, false
	}
	if !t.verify(got, taskMACLabel, h.server, h.client, h.id) {
		return taskHandle{}, false
	}
	return h, true
}

// mac is the MAC of h under key.
func mac(key []byte, h taskHandle) []byte { return sum(key, taskMACLabel, h.server, h.client, h.id) }

// sum is the MAC of parts under key, after label, which says what they
// are (a task id, a request state), so that one cannot pass for the
// other: each part is preceded by its length, so that no two lists are
// written alike ("ab", "c" and "a", "bc" differ).
func sum(key []byte, label string, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	for _, part := range parts {
		m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(part))))
		m.Write([]byte(part))
	}
	return m.Sum(nil)[:macSize]
}

// verify reports whether got is the MAC of parts after label under one of
// the keys. Every key is tried, so that the time taken does not say which
// one made it.
func (t taskIDs) verify(got []byte, label string, parts ...string) bool {
	good := false
	for _, key := range t.keys {
		good = hmac.Equal(got, sum(key, label, parts...)) || good
	}
	return good
}
