//go:build !race

package codemode

// raceBuilt says the race detector is not built in.
const raceBuilt = false
