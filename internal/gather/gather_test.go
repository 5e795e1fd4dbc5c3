package gather

import (
	"bytes"
	"testing"
)

// A message gathered in any sizes of writes, in the head and on into the
// pieces, reads back as written, whole or part by part; Take hands it over
// and Reset starts the next.
func TestBuffer(t *testing.T) {
	var b Buffer
	for _, size := range []int{0, 1, PieceSize, PieceSize + 1, 5*PieceSize + 17, Keep, Keep + 1} {
		for _, chunk := range []int{7, 4096, PieceSize, PieceSize + 3} {
			want := make([]byte, size)
			for i := range want {
				want[i] = byte(i*31 + size + chunk)
			}
			for p := want; len(p) > 0; {
				k := min(chunk, len(p))
				b.Write(p[:k])
				p = p[k:]
			}
			if b.Len() != size {
				t.Fatalf("size %d in writes of %d: Len %d", size, chunk, b.Len())
			}
			var parts []byte
			b.Each(func(p []byte) { parts = append(parts, p...) })
			if !bytes.Equal(parts, want) {
				t.Fatalf("size %d in writes of %d: the parts differ from what was written", size, chunk)
			}
			if got := b.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("size %d in writes of %d: Bytes differs from what was written", size, chunk)
			}
			if chunk == 7 {
				got := b.Take(nil)
				b.Write([]byte("next")) // must not write into what was taken
				if !bytes.Equal(got, want) || string(b.Bytes()) != "next" {
					t.Fatalf("size %d: Take gave %d bytes, then %q", size, len(got), b.Bytes())
				}
			}
			b.Reset()
			if b.Len() != 0 || len(b.Bytes()) != 0 || cap(b.head) > 2*PieceSize || cap(b.spare) > Keep {
				t.Fatalf("after Reset: Len %d, %d bytes, head of %d", b.Len(), len(b.Bytes()), cap(b.head))
			}
		}
	}
}
