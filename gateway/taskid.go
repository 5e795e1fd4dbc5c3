package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
)

// TaskKeySize is the least length, in bytes, of each of
// [Options.TaskKeys], and the length of the key Start makes without them.
const TaskKeySize = 32

// checkTaskKeys refuses a key shorter than TaskKeySize, naming it.
func (o *options) checkTaskKeys() error {
	for i, k := range o.taskKeys {
		if n := len(k); n < TaskKeySize {
			return fmt.Errorf("gateway: TaskKeys[%d]: a key of %d bytes: want %d or more", i, n, TaskKeySize)
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
// reads them back, under the gateway's task keys ([Options] TaskKeys): the
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
