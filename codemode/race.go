//go:build race

package codemode

// raceBuilt says the race detector is built in: its runtime maps shadow
// memory of terabytes as it goes, so no address space limit can hold it.
const raceBuilt = true
