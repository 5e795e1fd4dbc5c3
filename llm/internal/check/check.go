// Package check holds the checks the vendor packages of llm make alike on
// the settings of a new model.
package check

import (
	"errors"
	"fmt"
	"net/url"
)

// New checks a model's name, token limit and base URL, naming the vendor.
func New(vendor, model string, maxTokens int, baseURL string) error {
	if model == "" {
		return errors.New(vendor + ": empty model name")
	}
	if maxTokens < 0 {
		return fmt.Errorf("%s: max tokens %d is negative", vendor, maxTokens)
	}
	if baseURL != "" {
		u, err := url.Parse(baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s: base URL %q is not an http(s) URL", vendor, baseURL)
		}
	}
	return nil
}
