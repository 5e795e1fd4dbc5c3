package redact

import (
	"regexp"
	"strings"
)

// keyLike matches the secret keys vendors issue (sk-..., sk-ant-..., and the
// masked forms they echo back, such as sk-abc1*****wxyz).
var keyLike = regexp.MustCompile(`\b(?:sk|pk|rk|key)-[A-Za-z0-9_*\-]{6,}(?:\.[A-Za-z0-9_*\-]+)*`)

// Scrub returns s with every occurrence of each secret, and of anything
// shaped like an API key, replaced by "***". Callers pass the configured API
// key so that even a key of an unusual shape is removed.
func Scrub(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "***")
		}
	}
	return keyLike.ReplaceAllString(s, "***")
}
