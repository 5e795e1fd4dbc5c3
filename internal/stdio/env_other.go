//go:build !windows

package stdio

// minimalEnvKeys is the POSIX set a login provides, which is what tools
// such as npx, uvx and shells expect to find.
var minimalEnvKeys = []string{
	"HOME",
	"LOGNAME",
	"PATH",
	"SHELL",
	"TERM",
	"USER",
}
