package stdio

// minimalEnvKeys are what Windows programs need to locate the system, the
// user profile and temporary files, and to run executables by bare name.
var minimalEnvKeys = []string{
	"APPDATA",
	"HOMEDRIVE",
	"HOMEPATH",
	"LOCALAPPDATA",
	"PATH",
	"PATHEXT",
	"PROCESSOR_ARCHITECTURE",
	"SYSTEMDRIVE",
	"SYSTEMROOT",
	"TEMP",
	"USERNAME",
	"USERPROFILE",
}
