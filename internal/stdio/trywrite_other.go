//go:build !unix

package stdio

// tryWrite writes nothing: the blocking write does it all.
func (c *Conn) tryWrite(line []byte) (int, error) { return 0, nil }
