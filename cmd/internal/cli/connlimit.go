package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// A connLimit bounds the connections an http.Server holds open
// ([gateway.Limits] Connections). Unlike a listener that stops accepting at
// its bound (golang.org/x/net/netutil's), which leaves every new client
// waiting in the kernel's backlog, it makes room: at the bound, a new
// connection closes one on which no request is being served: the one idle
// longest between requests, else the one that has been sending its
// request longest (its headers or body, as a client that sends a byte now
// and then does), so that a client holding connections it does not use
// cannot keep a new one out. Only when every connection is serving a
// request (an answer being made, an event stream) is the new one answered
// 503 and closed.
//
// The server tells it what each connection does: [connLimit.serve] wraps
// its handler, [connLimit.state] is its ConnState and [connLimit.context]
// its ConnContext. A new connection is reading until its first request has
// arrived.
type connLimit struct {
	net.Listener
	max       int
	encrypted bool // TLS over the connections: a refusal is a close, not plain text

	mu    sync.Mutex
	conns map[*limitedConn]struct{}

	refusing sync.WaitGroup // the answers 503 being written
	answers  chan struct{}  // bounds them
}

// A limitedConn is a connection of a connLimit, with what it does.
type limitedConn struct {
	net.Conn
	l *connLimit

	// guarded by l.mu
	phase phase
	since time.Time // when the phase began
}

// A phase is what a connection does.
type phase int

const (
	reading phase = iota // a request arriving: its headers or its body
	idle                 // between requests
	serving              // a request's answer being made
)

func newConnLimit(ln net.Listener, max int) *connLimit {
	return &connLimit{Listener: ln, max: max, conns: map[*limitedConn]struct{}{}, answers: make(chan struct{}, 64)}
}

// Accept accepts the next connection, making room for it or answering it
// 503 at the bound.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		var victim *limitedConn
		if len(l.conns) >= l.max {
			if victim = l.idlest(); victim == nil {
				l.mu.Unlock()
				l.refuse(c)
				continue
			}
			delete(l.conns, victim)
		}
		lc := &limitedConn{Conn: c, l: l, since: time.Now()}
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
		if victim != nil {
			// Its server goroutine ends as its read fails.
			victim.Conn.Close()
		}
		return lc, nil
	}
}

// idlest is the connection to close for a new one: the one idle longest,
// else the one reading its request longest; nil if every one is serving a
// request. l.mu is held.
func (l *connLimit) idlest() *limitedConn {
	var pick *limitedConn
	for c := range l.conns {
		if c.phase != serving && (pick == nil || c.phase > pick.phase || c.phase == pick.phase && c.since.Before(pick.since)) {
			pick = c
		}
	}
	return pick
}

// refuse answers c's request 503 and closes it: a client learns that the
// server is full rather than waiting. The answer follows the request's
// headers (a client takes no answer before its request), and the request
// is read on (a second in all, at most 64 KiB) before the close, so that
// the client is not reset before it reads the answer; past 64 such answers
// at once, c is closed at once.
func (l *connLimit) refuse(c net.Conn) {
	if l.encrypted {
		c.Close()
		return
	}
	select {
	case l.answers <- struct{}{}:
	default:
		c.Close()
		return
	}
	l.refusing.Go(func() {
		defer func() { <-l.answers }()
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		in := bufio.NewReader(io.LimitReader(c, 64<<10))
		for {
			line, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(bytes.TrimSpace(line)) == 0 {
				break
			}
		}
		msg := fmt.Sprintf("Service Unavailable: the server holds %d connections, its bound (--max-connections), each serving a request; retry later\n", l.max)
		fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s", len(msg), msg)
		if tc, ok := c.(interface{ CloseWrite() error }); ok {
			tc.CloseWrite()
		}
		io.Copy(io.Discard, in)
	})
}

// Close closes the listener and waits for the answers 503 being written;
// the connections are the server's to close.
func (l *connLimit) Close() error {
	err := l.Listener.Close()
	l.refusing.Wait()
	return err
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// set records c's phase.
func (c *limitedConn) set(p phase) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.phase != p {
		c.phase, c.since = p, time.Now()
	}
}

// connKey carries a request's connection to [connLimit.serve].
type connKey struct{}

// context is the server's ConnContext: it gives each request its
// connection.
func (l *connLimit) context(ctx context.Context, c net.Conn) context.Context {
	if lc := limited(c); lc != nil {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// state is the server's ConnState: a connection is reading from the first
// byte of a request until [connLimit.serve] sees it whole.
func (l *connLimit) state(c net.Conn, s http.ConnState) {
	if lc := limited(c); lc != nil && s == http.StateActive {
		lc.set(reading)
	}
}

// limited is the connLimit's connection under c (a TLS connection wraps
// it), or nil.
func limited(c net.Conn) *limitedConn {
	for {
		switch v := c.(type) {
		case *limitedConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
}

// serve wraps the server's handler: a request is served, and its
// connection no longer waiting, once it has arrived whole (its body read
// to the end, or none); once answered, its connection is idle, before the
// client reads the end of the answer.
func (l *connLimit) serve(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lc, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
			if r.Body == nil || r.Body == http.NoBody {
				lc.set(serving)
			} else {
				r.Body = &arrival{ReadCloser: r.Body, c: lc}
			}
			defer lc.set(idle)
		}
		h.ServeHTTP(w, r)
	})
}

// An arrival is a request's body that marks its connection serving once it
// is read to the end.
type arrival struct {
	io.ReadCloser
	c *limitedConn
}

func (a *arrival) Read(p []byte) (int, error) {
	n, err := a.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) {
		a.c.set(serving)
	}
	return n, err
}
