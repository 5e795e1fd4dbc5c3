//go:build !((darwin && (amd64 || arm64)) || (freebsd && (amd64 || arm64)) || (linux && (386 || amd64 || arm || arm64 || loong64 || ppc64le || riscv64 || s390x)) || (windows && (amd64 || arm64)))

package codemode

import "context"

// run fails where the interpreter does not build (modernc.org/quickjs
// lists the platforms it runs on).
func (r *Runtime) run(context.Context, string) (*Output, error) {
	return &Output{Summary: "no tool calls"}, errNoInterpreter
}
