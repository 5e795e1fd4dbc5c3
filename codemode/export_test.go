package codemode

// InProcess makes rt run its scripts on a goroutine of the test's
// process, as a program that does not call ServeIfChild does: what a
// testing/synctest bubble needs, whose clock a process's pipes would
// stop.
func InProcess(rt *Runtime) *Runtime {
	rt.isolated = false
	return rt
}

// Isolated reports whether rt runs its scripts in processes of their own.
func Isolated(rt *Runtime) bool { return rt.isolated }

// Hanging makes rt run its scripts in process with a host function
// __hang that returns once hang is closed: a built-in that never yields,
// as a testing/synctest bubble can wait it out.
func Hanging(rt *Runtime, hang <-chan struct{}) *Runtime {
	rt.isolated, rt.hang = false, hang
	return rt
}
