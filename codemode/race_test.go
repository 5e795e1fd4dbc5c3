//go:build race

package codemode_test

// raceOn says the race detector is on: the interpreter, whose every memory
// access it checks, is then many times slower.
const raceOn = true
