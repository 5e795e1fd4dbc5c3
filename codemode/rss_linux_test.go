package codemode_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// resetPeakRSS starts a new measure of the process's peak resident size;
// peakRSS reads it, in bytes. ok is false where the system does not tell.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

func peakRSS() (n int64, ok bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(data) {
		if rest, found := bytes.CutPrefix(line, []byte("VmHWM:")); found {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// childrenPeakRSS is the largest peak resident size of the children this
// process waited for, in bytes.
func childrenPeakRSS() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	return ru.Maxrss << 10, true
}
