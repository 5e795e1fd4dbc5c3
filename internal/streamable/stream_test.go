package streamable

import (
	"bufio"
	"io"
	"runtime"
	"strings"
	"testing"
)

// Events are read as go-sdk reads them, on both sides of the reader's
// buffer: a data line longer than it is gathered (and one too long to keep
// the buffer for is the event's), and each event's data is its own,
// whatever the events after it.
func TestEventsAcrossTheBuffer(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	stream := "id: 1\ndata: " + long("a", 4095) + "\n\n" +
		"data: " + long("b", 10000) + "\ndata: " + long("c", 5000) + "\n\n" +
		"data: short\r\n\r\n" +
		"data: " + long("f", 2<<20) + "\n\n" +
		"data:  " + long("d", 4097) + "  \n\n" +
		"data: " + long("e", 3<<20) // cut short: the end of the stream ends the event
	want := []event{
		{id: "1", data: []byte(long("a", 4095))},
		{data: []byte(long("b", 10000) + "\n" + long("c", 5000))},
		{data: []byte("short")},
		{data: []byte(long("f", 2<<20))},
		{data: []byte(long("d", 4097))},
		{data: []byte(long("e", 3<<20))},
	}
	s := &events{r: bufio.NewReaderSize(strings.NewReader(stream), 4096)}
	var got []event
	for {
		var e event
		err := s.next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events; want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].id != want[i].id || string(got[i].data) != string(want[i].data) {
			t.Errorf("event %d: id %q, %d bytes of data beginning %.10q; want id %q, %d bytes beginning %.10q",
				i, got[i].id, len(got[i].data), got[i].data, want[i].id, len(want[i].data), want[i].data)
		}
	}
}

// A line longer than the reader's buffer is gathered in pieces and put
// together once, and one too large for its buffer to be kept becomes the
// event's data: a large message is not allocated five times over as the
// line grows, nor copied once more.
func TestALongLineGatheredAtOnce(t *testing.T) {
	const size = 3 << 20
	stream := "data: " + strings.Repeat("x", size) + "\n\n"
	s := &events{r: bufio.NewReaderSize(strings.NewReader(stream), 4096)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var e event
	if err := s.next(&e); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(e.data) != size {
		t.Fatalf("%d bytes of data; want %d", len(e.data), size)
	}
	// Twice the line (the pieces, made the first time, and the line put
	// together); five times and more as a slice grown line by line, six
	// with a copy for the event.
	if got := after.TotalAlloc - before.TotalAlloc; got > 5*size/2 {
		t.Errorf("reading a %d-byte line allocated %d bytes; want at most %d", size, got, 5*size/2)
	}
}
