package cli

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/log/global"

	"github.com/mcpbridge/mcpbridge/gateway"
	"github.com/mcpbridge/mcpbridge/internal/redact"
)

// storeEnv holds the URL of the replicas' shared store when it carries a
// password, which a flag must not (a command line is visible to every user
// of the machine).
const storeEnv = "MCPBRIDGE_STORE"

// storeURL is the shared store serve is given: --store, else
// $MCPBRIDGE_STORE, else the config's "store"; "" for none. A password in
// the flag's URL is refused.
func storeURL(flag, config string) (string, error) {
	if flag != "" {
		if u, err := url.Parse(flag); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				return "", Usagef("--store %s: a password on the command line is visible to every user of the machine: put the URL in $%s or the config's \"store\"", redact.URL(flag), storeEnv)
			}
		}
		quietRedis()
		return flag, nil
	}
	if v := os.Getenv(storeEnv); v != "" {
		quietRedis()
		return v, nil
	}
	if config != "" {
		quietRedis()
	}
	return config, nil
}

// quietRedis silences go-redis's own logger, which prints every failed
// dial: the gateway says once that the store went away, and once that it
// is back.
func quietRedis() { redis.SetLogger(silent{}) }

type silent struct{}

func (silent) Printf(context.Context, string, ...any) {}

// An auditConfig is the "audit" object of a config file's "gateway".
type auditConfig struct {
	// File is where the records go, as JSON lines, relative to the
	// config's directory; "-" is stdout.
	File string `json:"file"`
	// Arguments records each call's arguments, masked.
	Arguments bool `json:"arguments"`
}

// auditOptions sets opts.Audit from --audit and --audit-arguments, else the
// config's "audit" (file relative to configPath's directory), and, when
// the environment exports logs to a collector, its log records; it returns
// what closes the file. Each record names the replica by its host name and
// the port of ln (nil over stdio), where stdout is the client's, and so is
// not the log's.
func auditOptions(opts *gateway.Options, file string, args bool, c *auditConfig, configPath string, ln net.Listener, s *Streams) (func(), error) {
	if file == "" && c != nil {
		file, args = c.File, args || c.Arguments
		if file != "" && file != "-" && !filepath.IsAbs(file) {
			file = filepath.Join(filepath.Dir(configPath), file)
		}
	}
	a := &gateway.Audit{Arguments: args}
	if logsExported(os.Getenv) {
		a.Logs = global.GetLoggerProvider()
	}
	closeFile := func() {}
	switch file {
	case "":
	case "-":
		if ln == nil {
			return nil, Usagef("--audit -: over stdio, stdout is the client's: give a file")
		}
		a.Writer = s.Out
	default:
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--audit: %w", err)}
		}
		a.Writer, closeFile = f, func() { f.Close() }
	}
	if a.Writer == nil && a.Logs == nil {
		if args {
			return nil, Usagef("--audit-arguments records arguments in the audit log: give --audit FILE (or export logs to a collector)")
		}
		return closeFile, nil
	}
	host, _ := os.Hostname()
	a.Replica = host
	if ln != nil {
		if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
			a.Replica = net.JoinHostPort(host, strconv.Itoa(tcp.Port))
		}
	}
	opts.Audit = a
	return closeFile, nil
}
