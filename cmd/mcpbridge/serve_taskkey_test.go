package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// Replicas share the keys of their task ids through a file, never a
// flag's value, one a line, its whitespace trimmed; a key shorter than 32
// bytes (named by its line, blank lines counted), a file with no key, or
// one that cannot be read, is refused as a bad flag is, naming the flag
// and the file, never quoting a key.
func TestServeTaskKeyFile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("k", 32)
	for _, c := range []struct{ path, want string }{
		{writeConfig(t, dir, "short.key", "  "+strings.Repeat("k", 31)+"\n"), "line 1: a key of 31 bytes"},
		{writeConfig(t, dir, "short2.key", long+"\n\n  short-second-key \n"), "line 3: a key of 16 bytes"},
		{writeConfig(t, dir, "blank.key", " \n\n"), "no key"},
		{filepath.Join(dir, "missing.key"), "missing.key"},
	} {
		r := mcpbridge(t, dir, "", nil, "serve", "--http", "127.0.0.1:0", "--task-key-file", c.path)
		expect(t, r, 2, "--task-key-file "+c.path, c.want)
		if strings.Contains(r.out+r.err, "short-second-key") {
			t.Errorf("%s: the key is quoted:\n%s%s", c.path, r.out, r.err)
		}
	}
	if r := mcpbridge(t, dir, "", nil, "serve", "--help"); !strings.Contains(r.out, "  --task-key-file FILE\n") || !strings.Contains(r.out, "To rotate") {
		t.Errorf("serve's help does not name --task-key-file, or not how to rotate:\n%s%s", r.out, r.err)
	}
	key := writeConfig(t, dir, "task.key", long+"\n")
	url, _, _ := startServe(t, "--task-key-file", key)
	cs, _ := connectServe(t, url, "2026-07-28")
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
}

// Replicas given one --task-key-file route each other's tasks; a gateway
// without it takes their ids for ones it never gave.
func TestServeReplicasShareTheirTaskKey(t *testing.T) {
	// The demo over stateless HTTP speaks 2026-07-28, so its tasks are
	// handed to a client that follows them, and every replica reaches the
	// same tasks.
	s := demo.New(demo.WithNotesFile(filepath.Join(t.TempDir(), "notes.json")))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	key := writeConfig(t, t.TempDir(), "task.key", strings.Repeat("k", 32)+"\n")
	var replicas []*mcp.ClientSession
	for _, args := range [][]string{{"--task-key-file", key}, {"--task-key-file", key}, nil} {
		url, _, _ := startServe(t, append([]string{"--url", srv.URL, "--name", "demo"}, args...)...)
		replicas = append(replicas, taskClient(t, url))
	}
	id := handTask(t, replicas[0])
	if got, err := getTask(t, replicas[1], id); err != nil || got.TaskID != id {
		t.Errorf("the replica with the same key: %+v, %v", got, err)
	}
	if _, err := getTask(t, replicas[2], id); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Errorf("the gateway without the key: %v", err)
	}
}

// A key file of two lines rotates the key: the ids made under the old key,
// now on the second line, are still taken, and new ones are made under the
// new key, on the first; a file without the old key no longer takes its
// ids.
func TestServeRotatesItsTaskKey(t *testing.T) {
	s := demo.New(demo.WithNotesFile(filepath.Join(t.TempDir(), "notes.json")))
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	oldKey, newKey := strings.Repeat("o", 32), strings.Repeat("n", 32)
	files := 0
	replica := func(keys string) *mcp.ClientSession {
		files++
		path := writeConfig(t, dir, fmt.Sprintf("task%d.key", files), keys)
		url, _, _ := startServe(t, "--url", srv.URL, "--name", "demo", "--task-key-file", path)
		return taskClient(t, url)
	}
	old := handTask(t, replica(oldKey+"\n"))
	rotated := replica(newKey + "\n\n" + oldKey + "\n")
	if got, err := getTask(t, rotated, old); err != nil || got.TaskID != old {
		t.Errorf("the old key's task, after the rotation: %+v, %v", got, err)
	}
	current := handTask(t, rotated)
	newOnly := replica(" " + newKey + " ")
	if got, err := getTask(t, newOnly, current); err != nil || got.TaskID != current {
		t.Errorf("the new key's task, the old key dropped: %+v, %v", got, err)
	}
	if _, err := getTask(t, newOnly, old); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Errorf("the old key's task, the old key dropped: %v", err)
	}
}

// handTask calls the demo's tag_report through cs, which a gateway hands
// as a task, and returns the task's id.
func handTask(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	ctx, caught := sdkfix.WithCatch(t.Context())
	defer caught.Release()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tag_report", Arguments: map[string]any{"tag": "work"}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := caught.Raw()
	var task struct{ TaskID string }
	if err := json.Unmarshal(raw, &task); err != nil || task.TaskID == "" {
		t.Fatalf("tag_report's answer is no task: %s", raw)
	}
	return task.TaskID
}

// getTask sends tasks/get about the task id through cs.
func getTask(t *testing.T, cs *mcp.ClientSession, id string) (*taskAnswer, error) {
	return mcp.CallCustomMethod[*taskParams, *taskAnswer](t.Context(), cs, "tasks/get", &taskParams{TaskID: id})
}

type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

type taskAnswer struct {
	mcp.ResultBase
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// taskClient connects a 2026-07-28 client that follows tasks (declaring
// the extension, and sending tasks/get) to the gateway at url.
func taskClient(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	opts.Capabilities.AddExtension("io.modelcontextprotocol/tasks", nil)
	c := mcp.NewClient(&mcp.Implementation{Name: "task-client"}, opts)
	if err := mcp.AddSendingCustomMethod[*taskParams, *taskAnswer](c, "tasks/get"); err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: &sdkfix.HTTPTap{Next: http.DefaultTransport}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
