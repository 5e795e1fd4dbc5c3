package sdkfix

// The go-sdk behaviours internal/stdio answers (see gosdk_test.go).

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// internal/stdio: go-sdk's command transport passes the server this
// process's whole environment and leaves it in this process's group.
func TestGoSDKCommandTransport(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = nil
	t.Setenv(childEnv, "1") // inherited, since Env is nil
	conn, err := (&mcp.CommandTransport{Command: cmd}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	env, group := cmd.Env, cmd.SysProcAttr
	conn.Close()
	if env != nil || group != nil {
		t.Fatalf(upgraded + "the command transport sets the environment or the process group: see whether internal/stdio's Command is still needed")
	}
}

// internal/stdio: after one line over go-sdk's line limit, its connection
// reads nothing more.
func TestGoSDKLineLimitEndsTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, feed := io.Pipe()
		conn, err := (&mcp.IOTransport{Reader: in, Writer: nopWriter{}, MaxLineLength: 64}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			fmt.Fprintf(feed, `{"jsonrpc":"2.0","id":1,"result":{"text":"%s"}}`+"\n", strings.Repeat("x", 100))
			fmt.Fprintln(feed, `{"jsonrpc":"2.0","id":2,"result":{}}`)
		}()
		if _, err := conn.Read(context.Background()); err == nil {
			t.Fatal("read a line over the limit")
		}
		next := make(chan error, 1)
		go func() {
			_, err := conn.Read(context.Background())
			next <- err
		}()
		synctest.Wait()
		select {
		case err := <-next:
			t.Fatalf(upgraded+"the line after one over the limit is read (%v): internal/stdio's own framing may go", err)
		default:
		}
		conn.Close()
		<-next
		in.Close()
	})
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriter) Close() error                { return nil }

// internal/stdio: go-sdk's decoding of a message allocates a fresh
// decoder of tens of kilobytes, whatever the message's size.
func TestGoSDKDecodeAllocates(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	const n = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per < 16<<10 {
		t.Fatalf(upgraded+"decoding a message allocates %d bytes: internal/stdio could use jsonrpc.DecodeMessage", per)
	}
}

// internal/stdio: go-sdk waits for the server/discover probe as long as the
// caller's context lets it, so a server that ignores it hangs Connect.
func TestGoSDKWaitsForTheProbe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ct, _ := rawServer(t, map[string]answer{"server/discover": {}})
		done := make(chan error, 1)
		go func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
			if err == nil {
				cs.Close()
			}
			done <- err
		}()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf(upgraded+"an unanswered server/discover gives way to initialize (%v): internal/stdio's probe bound can go", err)
		default:
		}
		// Cleanup ends the server; the connect fails then.
	})
}
