// Package sdkfix holds what mcpbridge does because of how go-sdk
// (github.com/modelcontextprotocol/go-sdk) v1.8.0 behaves: each workaround,
// with the behaviour it answers.
package sdkfix
