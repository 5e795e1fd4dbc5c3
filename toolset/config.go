package toolset

import "github.com/mcpbridge/mcpbridge/internal/catalog"

// A Config is the servers of a configuration file: mcpServers (Claude
// Desktop, Cursor, Claude Code) or servers (VS Code), each a [ServerConfig]
// by name. Its Validate method names every problem at once.
type Config = catalog.Config

// A ServerConfig is one server: a command (with args, env, cwd) or a URL
// (with headers, OAuth), and how mcpbridge runs it: prefix, required,
// timeouts, tools allowed and disabled, roots. Its String hides secrets.
type ServerConfig = catalog.ServerConfig

// AuthConfig is a server's OAuth settings in a config file.
type AuthConfig = catalog.AuthConfig

// Load reads the config file at path, with ${VAR} and ${VAR:-default}
// expanded from the environment. A syntax error names the line and
// column; what the settings get wrong is for the config's Validate to say.
func Load(path string) (*Config, error) { return catalog.Load(path) }

// Parse reads a config from data, as [Load] does: the mcpServers object
// of Claude Desktop, Cursor and Claude Code, or VS Code's servers.
func Parse(data []byte) (*Config, error) { return catalog.Parse(data) }

// An InvalidConfigError lists every [Problem] of a config, each naming the
// server and the key.
type (
	InvalidConfigError = catalog.InvalidConfigError
	Problem            = catalog.Problem
)

// A StartError is a required server that failed to start: nothing is left
// running.
type StartError = catalog.StartError

// A ServerStatus is the state of one server of a [Toolset]; a Quarantine
// is a tool held out of the catalog, and why.
type (
	ServerStatus = catalog.ServerStatus
	Quarantine   = catalog.Quarantine
)
