package redact

import "testing"

func TestScrub(t *testing.T) {
	for in, want := range map[string]string{
		"Incorrect API key provided: sk-abc1*****wxyz. See docs.": "Incorrect API key provided: ***. See docs.",
		"invalid x-api-key sk-ant-api03-AbC_d-ef":                 "invalid x-api-key ***",
		"key my-odd-secret rejected":                              "key *** rejected",
		"rate limit reached for gpt-4.1":                          "rate limit reached for gpt-4.1",
	} {
		if got := Scrub(in, "my-odd-secret"); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}
