// Package gather puts together a message that arrives in parts (a line
// of a stream read through a small buffer, an event of a server-sent
// event stream), at the cost of about its size, not of a buffer that
// grows as the parts come.
package gather

import "sync"

// A Buffer gathers a message as its bytes arrive: its first PieceSize
// bytes in a buffer of its own, then in pieces, put together once it is
// whole. A message of at most Keep bytes is put together in a buffer kept
// for the next; a larger one in one allocation of its size. A large
// message so costs about its size, where a buffer that doubles as the
// bytes come costs about three times it, and a small one costs nothing
// once the buffers are made. The zero Buffer is empty and ready.
type Buffer struct {
	head   []byte    // the message's first bytes, up to PieceSize
	pieces []*[]byte // what follows head, PieceSize each but the last
	whole  []byte    // the message put together, if it was (see Bytes)
	spare  []byte    // a buffer to put the next message together in
	n      int       // bytes in all
}

const (
	// PieceSize is the size of a piece, and of the head.
	PieceSize = 64 << 10
	// Keep is the largest buffer kept for the next message: one huge
	// message should not pin its memory.
	Keep = 1 << 20
)

var pieces = sync.Pool{New: func() any { p := make([]byte, 0, PieceSize); return &p }}

// Write appends p.
func (b *Buffer) Write(p []byte) {
	b.n += len(p)
	if len(b.pieces) == 0 && len(b.head)+len(p) <= PieceSize {
		b.head = append(b.head, p...)
		return
	}
	for len(p) > 0 {
		if len(b.pieces) == 0 || len(*b.pieces[len(b.pieces)-1]) == PieceSize {
			b.pieces = append(b.pieces, pieces.Get().(*[]byte))
		}
		last := b.pieces[len(b.pieces)-1]
		k := min(len(p), PieceSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// Len returns the bytes written since the last Reset.
func (b *Buffer) Len() int { return b.n }

// Cap returns the bytes b holds, in use or kept for the next message.
func (b *Buffer) Cap() int {
	return cap(b.head) + len(b.pieces)*PieceSize + cap(b.whole) + cap(b.spare)
}

// Each calls f with the message's bytes, in order, in the parts they are
// held in.
func (b *Buffer) Each(f func([]byte)) {
	if b.whole != nil {
		f(b.whole)
		return
	}
	f(b.head)
	for _, p := range b.pieces {
		f(*p)
	}
}

// Bytes returns the message whole, valid until the next Write, Take or
// Reset.
func (b *Buffer) Bytes() []byte {
	switch {
	case b.whole != nil:
		return b.whole
	case len(b.pieces) == 0:
		return b.head
	}
	var whole []byte
	if b.n <= Keep && cap(b.spare) >= b.n {
		whole, b.spare = b.spare[:0], nil
	} else {
		whole = make([]byte, 0, b.n)
	}
	b.Each(func(p []byte) { whole = append(whole, p...) })
	b.release()
	b.whole = whole
	return whole
}

// Take returns the message whole, the caller's to keep, and empties b.
// spare, an empty buffer the caller is done with, is kept to put a later
// message together in, if it is not too large.
func (b *Buffer) Take(spare []byte) []byte {
	whole := b.Bytes()
	if len(b.pieces) == 0 && b.whole == nil {
		b.head = nil // the head itself was taken
	}
	b.whole = nil
	b.Reset()
	switch {
	case b.head == nil && cap(spare) <= PieceSize:
		b.head = spare[:0]
	case b.spare == nil && cap(spare) <= Keep:
		b.spare = spare[:0]
	}
	return whole
}

// Reset empties b, keeping its buffers for the next message.
func (b *Buffer) Reset() {
	b.release()
	if b.whole != nil && cap(b.whole) <= Keep && b.spare == nil {
		b.spare = b.whole[:0]
	}
	b.whole, b.head, b.n = nil, b.head[:0], 0
}

// release gives the pieces back.
func (b *Buffer) release() {
	for _, p := range b.pieces {
		*p = (*p)[:0]
		pieces.Put(p)
	}
	b.pieces = nil
}
