//go:build !((darwin && (amd64 || arm64)) || (freebsd && (amd64 || arm64)) || (linux && (386 || amd64 || arm || arm64 || loong64 || ppc64le || riscv64 || s390x)) || (windows && (amd64 || arm64)))

package codemode

// haveInterpreter says the interpreter does not build here
// (modernc.org/quickjs lists the platforms it runs on).
const haveInterpreter = false

func startLocal(*message, <-chan struct{}) (engine, error) { return nil, errNoInterpreter }

// port is the interpreter's end of a run, which has none here.
type port interface {
	send(*message) error
	recv() (*message, error)
}

func serveInterp(p port, _ *message, _ any) {
	p.send(&message{Kind: kindEnd, Failure: errNoInterpreter.Error()})
}
