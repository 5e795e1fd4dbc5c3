//go:build !linux

package stdio

// rawRead is nothing: os.File reads.
type rawRead struct{}

func (r *stdoutReader) init() {}

// pollable is false: a read blocks in os.File, and Conn.Await leaves the
// reading to the reader's goroutine.
func (r *stdoutReader) pollable() bool { return false }

func (r *stdoutReader) read(p []byte) (int, error) { return r.f.Read(p) }
