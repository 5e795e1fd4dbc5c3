package handle_test

import (
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/handle"
)

type engine struct{ n int }

type of = handle.Of[engine]

type Public struct{ of }

func TestWrapAndCore(t *testing.T) {
	e := &engine{n: 7}
	p := handle.Wrap[Public](e)
	if got := handle.Core[engine](p); got != e {
		t.Fatalf("Core(Wrap(e)) = %p, want %p", got, e)
	}
	if handle.Core[engine]((*Public)(nil)) != nil || handle.Wrap[Public]((*engine)(nil)) != nil {
		t.Fatal("nil does not stay nil")
	}
}
