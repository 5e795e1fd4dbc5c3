package cli

import "testing"

// The policy comes before anything of the server's page but its doctype,
// so no comment or element of the page can hide it or come first.
func TestWithPolicy(t *testing.T) {
	const meta = `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;">`
	for _, tc := range []struct{ doc, want string }{
		{`<!DOCTYPE html><html><head></head></html>`, `<!DOCTYPE html>` + meta + `<html><head></head></html>`},
		{"\n <!doctype html>\n<p>x", "\n <!doctype html>" + meta + "\n<p>x"},
		{`<!-- <head> --><!DOCTYPE html><head>`, meta + `<!-- <head> --><!DOCTYPE html><head>`},
		{`<html><head><meta http-equiv="Content-Security-Policy" content="default-src *">`, meta + `<html><head><meta http-equiv="Content-Security-Policy" content="default-src *">`},
		{`<!doctype`, meta + `<!doctype`},
		{``, meta},
	} {
		if got := withPolicy(tc.doc, "default-src 'none'"); got != tc.want {
			t.Errorf("withPolicy(%q)\n got %q\nwant %q", tc.doc, got, tc.want)
		}
	}
}
