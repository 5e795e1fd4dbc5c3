//go:build !linux

package codemode_test

// Only Linux tells a process its peak resident size in a way it can
// reset; elsewhere the memory test checks the budget's error alone.
func resetPeakRSS() bool { return false }

func peakRSS() (int64, bool) { return 0, false }

func childrenPeakRSS() (int64, bool) { return 0, false }
