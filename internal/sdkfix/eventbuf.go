package sdkfix

import "sync"

// An eventBuf gathers an event of a stream as its bytes arrive: its first
// pieceSize bytes in a buffer of its own, then in pieces, put together
// once the event ends. An event of at most keepBufferCap is put together
// in a buffer kept for the next event; a larger one in one allocation of
// its size. A large event so costs about its size, where a buffer that
// doubles as the bytes come costs about three times it, and a small one
// costs nothing once the buffers are made.
type eventBuf struct {
	head   []byte    // the event's first bytes, up to pieceSize
	pieces []*[]byte // what follows head, pieceSize each but the last
	whole  []byte    // the event put together, if it was (see Bytes)
	spare  []byte    // a buffer to put the next event together in
	n      int       // bytes in all
}

// pieceSize is the size of a piece, and of the head.
const pieceSize = 64 << 10

var pieces = sync.Pool{New: func() any { p := make([]byte, 0, pieceSize); return &p }}

func (b *eventBuf) Write(p []byte) {
	b.n += len(p)
	if len(b.pieces) == 0 && len(b.head)+len(p) <= pieceSize {
		b.head = append(b.head, p...)
		return
	}
	for len(p) > 0 {
		if len(b.pieces) == 0 || len(*b.pieces[len(b.pieces)-1]) == pieceSize {
			b.pieces = append(b.pieces, pieces.Get().(*[]byte))
		}
		last := b.pieces[len(b.pieces)-1]
		k := min(len(p), pieceSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
}

// Len returns the bytes written since the last Reset.
func (b *eventBuf) Len() int { return b.n }

// each calls f with the event's bytes, in order, in the parts they are
// held in.
func (b *eventBuf) each(f func([]byte)) {
	if b.whole != nil {
		f(b.whole)
		return
	}
	f(b.head)
	for _, p := range b.pieces {
		f(*p)
	}
}

// Bytes returns the event whole, valid until the next Write, Take or
// Reset.
func (b *eventBuf) Bytes() []byte {
	switch {
	case b.whole != nil:
		return b.whole
	case len(b.pieces) == 0:
		return b.head
	}
	var whole []byte
	if b.n <= keepBufferCap && cap(b.spare) >= b.n {
		whole, b.spare = b.spare[:0], nil
	} else {
		whole = make([]byte, 0, b.n)
	}
	b.each(func(p []byte) { whole = append(whole, p...) })
	b.release()
	b.whole = whole
	return whole
}

// Take returns the event whole, the caller's to keep, and empties b.
// spare, an empty buffer the caller is done with, is kept to put a later
// event together in, if it is not too large.
func (b *eventBuf) Take(spare []byte) []byte {
	whole := b.Bytes()
	if len(b.pieces) == 0 && b.whole == nil {
		b.head = nil // the head itself was taken
	}
	b.whole = nil
	b.Reset()
	switch {
	case b.head == nil && cap(spare) <= pieceSize:
		b.head = spare[:0]
	case b.spare == nil && cap(spare) <= keepBufferCap:
		b.spare = spare[:0]
	}
	return whole
}

// Reset empties b, keeping its buffers for the next event.
func (b *eventBuf) Reset() {
	b.release()
	if b.whole != nil && cap(b.whole) <= keepBufferCap && b.spare == nil {
		b.spare = b.whole[:0]
	}
	b.whole, b.head, b.n = nil, b.head[:0], 0
}

// release gives the pieces back.
func (b *eventBuf) release() {
	for _, p := range b.pieces {
		*p = (*p)[:0]
		pieces.Put(p)
	}
	b.pieces = nil
}
