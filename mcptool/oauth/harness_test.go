package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpbridge/mcpbridge/internal/testing/oauthtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The path of the protected resource metadata of an oauthtest.Server.
const metadataPath = "/.well-known/oauth-protected-resource/mcp"

// refuse is an oauthtest check that refuses a token request unless ok.
func refuse(ok bool, code, why string) *oauthtest.Refusal {
	if ok {
		return nil
	}
	return &oauthtest.Refusal{Status: http.StatusBadRequest, Code: code, Description: why}
}

// browser is the tests' Authorizer: it visits the authorization URL through
// client (nil: http.DefaultClient) and reads the code from the redirect, as
// a browser would deliver it.
func browser(client *http.Client) Authorizer {
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		c := http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		if client != nil {
			c.Transport = client.Transport
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			return nil, fmt.Errorf("authorization endpoint answered %d", resp.StatusCode)
		}
		return url.Parse(resp.Header.Get("Location"))
	}
}
