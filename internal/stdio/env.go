package stdio

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
)

// MinimalEnv returns the environment a server starts with before
// [Command.Env] is added: the few variables programs need to find their
// tools, home directory and temporary directory, copied from this process
// when set. Everything else of this process's environment, where API keys
// and tokens live, is withheld. Values starting with "()" are bash exported
// functions, code rather than data, and are withheld too.
func MinimalEnv() []string {
	env := make([]string, 0, len(minimalEnvKeys))
	for _, k := range minimalEnvKeys {
		if v, ok := os.LookupEnv(k); ok && !strings.HasPrefix(v, "()") {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// buildEnv returns MinimalEnv with add on top, sorted by key so that the
// child's environment does not depend on map iteration order.
func buildEnv(add map[string]string) ([]string, error) {
	env := MinimalEnv()
	keys := make([]string, 0, len(add))
	for k := range add {
		// A name with '=' would be split differently by the child, silently
		// setting a different variable.
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("invalid environment variable name %q", k)
		}
		if strings.Contains(add[k], "\x00") {
			// The value is not quoted: it may be a secret.
			return nil, fmt.Errorf("environment variable %s: value contains a NUL byte", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = slices.DeleteFunc(env, func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return envKeyEqual(name, k)
		})
		env = append(env, k+"="+add[k])
	}
	return env, nil
}

// envKeyEqual reports whether two variable names denote the same variable:
// Windows ignores case in them, so an override must replace "Path" as well
// as "PATH".
func envKeyEqual(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
