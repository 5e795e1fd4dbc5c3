//go:build !unix

package codemode

// ServeIfChild lets this program run every script of code mode in a
// process of its own, on Unix (see its documentation there). Elsewhere it
// returns at once, and the interpreter runs on a goroutine of the host's
// process: Run still returns within its budgets, but a built-in that
// never yields keeps that goroutine, and a CPU, busy until it returns.
func ServeIfChild() {}

func startChild(*message) (engine, error) { return nil, errNoInterpreter }
