package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// At its bound, the server makes room for a new client by closing a
// connection on which no request is being served: one idle between
// requests first, then the one that has been sending its request longest
// (here, bodies a byte at a time). When every connection is serving a
// request (event streams), a new one is answered 503 at once rather than
// left waiting.
func TestConnectionsMakeRoomForANewClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	streams := make(chan struct{})
	streaming := make(chan struct{})
	srv, ln := newServer(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/stream" {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			streaming <- struct{}{}
			<-streams
			return
		}
		fmt.Fprint(w, "ok")
	}), serverBounds{conns: 3})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		srv.Close()
		<-served
	}()
	addr := ln.Addr().String()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// Each client its own connection, kept open after its request.
	get := func(path string) (*http.Response, error) {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		return (&http.Client{Transport: tr}).Get("http://" + addr + path)
	}

	// The bound held: a body a byte at a time, a keep-alive connection
	// idle after its request, one more slow body.
	slow := dial()
	fmt.Fprint(slow, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4194304\r\n\r\n{")
	idle := dial()
	fmt.Fprint(idle, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	slower := dial()
	fmt.Fprint(slower, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4194304\r\n\r\n{")

	// A new client gets in, then three event streams, one after the
	// other, which leave nothing else open.
	resp, err = get("/")
	if err != nil {
		t.Fatalf("a new client at the bound: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("a new client at the bound: %s %q", resp.Status, body)
	}
	var clients sync.WaitGroup
	defer clients.Wait()
	defer close(streams)
	for i := range 3 {
		failed := make(chan error, 1)
		clients.Go(func() {
			resp, err := get("/stream")
			if err != nil {
				failed <- err
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
		select {
		case <-streaming:
		case err := <-failed:
			t.Fatalf("stream %d at the bound: %v", i+1, err)
		}
	}
	for _, held := range []struct {
		what string
		c    net.Conn
	}{{"the first slow body", slow}, {"the idle connection", idle}, {"the second slow body", slower}} {
		// Closed with a request's bytes unread, a connection may be
		// reset rather than ended: either is closed.
		held.c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.Copy(io.Discard, held.c); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: still open, with the bound held by streams", held.what)
		}
	}

	resp, err = get("/")
	if err != nil {
		t.Fatalf("a client past the bound: %v, want an answer", err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "holds 3 connections") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a client past the bound: %s %q", resp.Status, body)
	}
}
