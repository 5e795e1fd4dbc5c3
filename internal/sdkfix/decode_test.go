package sdkfix

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// results are tools/call results of every shape Decode reads itself or
// hands to go-sdk: for the agreement test and the fuzz corpus.
var results = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[{"type":"text","text":"a\u00e9\n\ud83d\ude00 \"q\""},{"type":"text","text":""}],"isError":true}`,
	`{"content":[{"type":"text","text":"bad \ud800 surrogate"}]}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"invalid \xff utf-8\"}]}",
	`{"content":[{"type":"text","text":null}]}`,
	`{"content":[{"type":"text","text":5}]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":"a","text":"b"}]}`,
	`{"content":[{"type":"text","text":"a","type":"image"}]}`,
	`{"content":[{"type":"text","text":"a","uri":5}]}`,
	`{"content":[{"type":"text","text":"a","mimeType":"text/plain"}]}`,
	`{"content":[{"type":"text","text":"a","Text":"b"}]}`,
	`{"content":[{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5}}]}`,
	`{"content":[{"type":"text","text":"a","_meta":{"k":[1,2.5,"x",null,true]}}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":"aGk="}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":"aGk"}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":"%%%"}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":"aG\nk="}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":"aG\u006b="}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":""}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":null}]}`,
	`{"content":[{"type":"image","mimeType":"image/png","data":[104,105]}]}`,
	`{"content":[{"type":"image","data":"aGk="}]}`,
	`{"content":[{"type":"image","mimeType":7,"data":"aGk="}]}`,
	`{"content":[{"type":"audio","mimeType":"audio/wav","data":"aGk="}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"a:b","text":"t"}},{"type":"text","text":"after"}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"a:b","blob":"%%%"}}]}`,
	`{"content":[{"type":"resource_link","uri":"a:b","name":"n","size":3}]}`,
	`{"content":[{"type":"tool_use","id":"1","name":"n","input":{}}]}`,
	`{"content":[{"type":"video"}]}`,
	`{"content":[{"text":"no type"}]}`,
	`{"content":[5]}`,
	`{"content":[null]}`,
	`{"content":[]}`,
	`{"content":null}`,
	`{}`,
	`{"content":{}}`,
	`{"content":"text"}`,
	`{"content":[],"isError":"yes"}`,
	`{"content":[],"isError":null}`,
	`{"content":[],"structuredContent":{"b":1,"a":[2,{"c":null}]}}`,
	`{"content":[],"structuredContent":[1,2]}`,
	`{"content":[],"structuredContent":"s"}`,
	`{"content":[],"structuredContent":null}`,
	`{"content":[],"structuredContent":1e400}`,
	`{"content":[],"structuredContent":{"a":1},"structuredContent":{"b":2}}`,
	`{"content":[],"resultType":"complete"}`,
	`{"content":[],"resultType":"input_required","inputRequests":{}}`,
	`{"content":[],"_meta":{"k":"v"}}`,
	`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"0.1.0"}},"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`,
	`{"content":[],"_meta":{"n":[1,2.5,-0,1e300,null,true],"o":{"a":{}},"k":"a","k":"b"}}`,
	`{"content":[],"_meta":{"n":1e400}}`,
	"{\"content\":[],\"_meta\":{\"bad\":\"\xff\\ud800\"}}",
	`{"content":[],"_meta":[1]}`,
	`{"content":[],"_meta":"m"}`,
	`{"content":[],"_meta":null}`,
	`{"content":[],"requestState":"s"}`,
	`{"content":[],"x-vendor":{"deep":[1,2,3]}}`,
	`{"\u0063ontent":[{"type":"text","text":"escaped key"}]}`,
	`{"Content":[{"type":"text","text":"case"}]}`,
	`{"content":[{"type":"text","text":"` + strings.Repeat("x", 70000) + `"}]}`,
	`{"content":[],"structuredContent":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`null`,
	`[]`,
	`{"content":[{"type":"text","text":"a"}]`,
	``,
}

// TestDecodeAgreesWithGoSDK holds Decode to go-sdk's decoding: the same
// result or a failure where go-sdk fails, but for the structured content,
// kept as written.
func TestDecodeAgreesWithGoSDK(t *testing.T) {
	for _, raw := range results {
		agree(t, []byte(raw))
	}
}

func FuzzDecode(f *testing.F) {
	for _, raw := range results {
		if len(raw) < 1000 { // the long ones slow the engine, and teach it nothing
			f.Add([]byte(raw))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) { agree(t, raw) })
}

func agree(t *testing.T, raw []byte) {
	t.Helper()
	want := new(mcp.CallToolResult)
	wantErr := json.Unmarshal(raw, want)
	got, err := Decode(raw)
	show := string(raw)
	if len(show) > 200 {
		show = show[:200] + "..."
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: Decode: %v; go-sdk: %v", show, err, wantErr)
	}
	// DecodeContent is Decode but for _meta, left out.
	content, cerr := DecodeContent(raw)
	if (cerr != nil) != (err != nil) {
		t.Fatalf("%s: DecodeContent: %v; Decode: %v", show, cerr, err)
	}
	if err != nil {
		return
	}
	if content.Meta != nil || !reflect.DeepEqual(content.Content, got.Content) || content.IsError != got.IsError ||
		!reflect.DeepEqual(content.StructuredContent, got.StructuredContent) {
		t.Fatalf("%s: DecodeContent gave %s; Decode %s", show, mustJSON(t, content), mustJSON(t, got))
	}
	if !reflect.DeepEqual(got.Content, want.Content) || got.IsError != want.IsError || !reflect.DeepEqual(got.Meta, want.Meta) ||
		!reflect.DeepEqual(got.InputRequests, want.InputRequests) || got.RequestState != want.RequestState {
		t.Fatalf("%s: Decode gave %s; go-sdk %s", show, mustJSON(t, got), mustJSON(t, want))
	}
	// Encoded again, but for the structured content, the same: the
	// resultType go-sdk keeps unexported included.
	g, w := *got, *want
	g.StructuredContent, w.StructuredContent = nil, nil
	if a, b := mustJSON(t, &g), mustJSON(t, &w); string(a) != string(b) {
		t.Fatalf("%s: Decode encodes again as %s; go-sdk's as %s", show, a, b)
	}
	switch written, ok := got.StructuredContent.(json.RawMessage); {
	case want.StructuredContent == nil:
		if got.StructuredContent != nil {
			t.Fatalf("%s: Decode gave structured content %s; go-sdk none", show, written)
		}
	case !ok:
		t.Fatalf("%s: Decode gave structured content of %T, not as written", show, got.StructuredContent)
	default:
		var a, b any
		json.Unmarshal(written, &a)
		json.Unmarshal(mustJSON(t, want.StructuredContent), &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: Decode gave structured content %s; go-sdk %s", show, written, mustJSON(t, want.StructuredContent))
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Decode's bytes are in proportion to the result: a small text result
// costs no decoder of go-sdk's (TestGoSDKDecodesEveryResultAnew).
func TestDecodeInProportion(t *testing.T) {
	for _, size := range []int{10, 1000, 100000} {
		raw := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", size) + `"}]}`)
		var before, after runtime.MemStats
		const n = 20
		runtime.ReadMemStats(&before)
		for range n {
			if _, err := Decode(raw); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / n; per > uint64(size)*9/8+1024 { // a large allocation is rounded up to whole pages
			t.Errorf("decoding a result of %d bytes allocates %d bytes", len(raw), per)
		}
	}
}
