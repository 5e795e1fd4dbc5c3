package mcpclient_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpbridge/mcpbridge/internal/mcpclient"
	"github.com/mcpbridge/mcpbridge/internal/testing/hostile"
	"github.com/mcpbridge/mcpbridge/tool"
)

// Proves that a tool whose output schema no validation could finish on (it
// overflowed the stack when its result was checked) fails its calls with a
// SchemaError naming the tool and the pointer of the cycle, through CallTool
// and the handler alike, without the server ever getting the call, and that the server's other tools still serve,
// their input schemas, however cyclic, kept as the server wrote them.
func TestUnboundedOutputSchema(t *testing.T) {
	p, srv, err := pipeProvider(t, "schema-cycles")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = callText(ctx, p, "out_cycle", nil)
	var se *mcpclient.SchemaError
	if !errors.As(err, &se) || se.Tool != "out_cycle" || se.Pointer != "/outputSchema/$ref" || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("CallTool(out_cycle) = %v; want a SchemaError at /outputSchema/$ref", err)
	}
	_, err = p.Handler().Call(ctx, "out_cycle", nil)
	var fe *tool.FailedError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Message, "the server's result cannot be checked: ") {
		t.Fatalf("Handler: %v; want a FailedError saying the result cannot be checked", err)
	}
	// Refused before it was sent: the tool must not run for a result that
	// could never be checked.
	if n := srv.Count("tools/call"); n != 0 {
		t.Fatalf("the server got %d calls of a tool whose output schema is unusable", n)
	}
	for _, d := range p.Tools() {
		if want, ok := hostile.CyclicTools[d.Name]; ok && string(d.InputSchema) != string(want) {
			t.Errorf("%s: input schema %s, want the server's", d.Name, d.InputSchema)
		}
	}
	if res, err := callText(ctx, p, "echo", map[string]any{"text": "still here"}); err != nil || !strings.Contains(res, "still here") {
		t.Fatalf("echo: %q, %v", res, err)
	}
}
