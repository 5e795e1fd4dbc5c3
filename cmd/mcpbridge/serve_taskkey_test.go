package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbridge/mcpbridge/internal/demo"
	"github.com/mcpbridge/mcpbridge/internal/sdkfix"
)

// Replicas share the key of their task ids through a file, never a flag's
// value, its whitespace trimmed; a key shorter than 32 bytes, or a file
// that cannot be read, is refused as a bad flag is, naming the flag and
// the file.
func TestServeTaskKeyFile(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{
		writeConfig(t, dir, "short.key", "  "+strings.Repeat("k", 31)+"\n"),
		filepath.Join(dir, "missing.key"),
	} {
		r := mcpbridge(t, dir, "", nil, "serve", "--http", "127.0.0.1:0", "--task-key-file", path)
		expect(t, r, 2, "--task-key-file "+path)
	}
	if r := mcpbridge(t, dir, "", nil, "serve", "--help"); !strings.Contains(r.out, "  --task-key-file FILE\n") {
		t.Errorf("serve's help does not name --task-key-file:\n%s%s", r.out, r.err)
	}
	key := writeConfig(t, dir, "task.key", strings.Repeat("k", 32)+"\n")
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
	ctx, caught := sdkfix.WithCatch(t.Context())
	defer caught.Release()
	if _, err := replicas[0].CallTool(ctx, &mcp.CallToolParams{Name: "tag_report", Arguments: map[string]any{"tag": "work"}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := caught.Raw()
	var task struct{ TaskID string }
	if err := json.Unmarshal(raw, &task); err != nil || task.TaskID == "" {
		t.Fatalf("tag_report's answer is no task: %s", raw)
	}
	get := func(cs *mcp.ClientSession) (*taskAnswer, error) {
		return mcp.CallCustomMethod[*taskParams, *taskAnswer](t.Context(), cs, "tasks/get", &taskParams{TaskID: task.TaskID})
	}
	if got, err := get(replicas[1]); err != nil || got.TaskID != task.TaskID {
		t.Errorf("the replica with the same key: %+v, %v", got, err)
	}
	if _, err := get(replicas[2]); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Errorf("the gateway without the key: %v", err)
	}
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
