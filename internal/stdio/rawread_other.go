//go:build !linux

package stdio

// rawRead is nothing: os.File reads.
type rawRead struct{}

func (r *stdoutReader) read(p []byte) (int, error) { return r.f.Read(p) }
