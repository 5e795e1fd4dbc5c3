package toolset

import (
	"context"

	"github.com/mcpbridge/mcpbridge/mcptool"
)

// The parts of mcptool's connection lifecycle the set follows, under short
// names.
type state = mcptool.State

const (
	stateConnecting = mcptool.StateConnecting
	stateReady      = mcptool.StateReady
	stateFailed     = mcptool.StateFailed
)

var (
	withStateChange  = mcptool.WithStateChange
	withToolsChanged = mcptool.WithToolsChanged
)

func refreshIfStale(ctx context.Context, p *mcptool.Provider) error { return p.RefreshIfStale(ctx) }
