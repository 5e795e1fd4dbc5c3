#!/usr/bin/env bash
# The official MCP server conformance suite against go-sdk's conformance
# server (conformance/everything-server, in the go-sdk module we build on)
# twice: direct over streamable HTTP, and through mcpbridge serve, which
# runs the same server over stdio. Prints each run's per-scenario summary,
# then the scenarios that pass direct but not through the gateway.
#
#   conformance/gateway.sh                        # the active suite
#   conformance/gateway.sh --spec-version 2026-07-28
#
# Everything listens on loopback and is stopped on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$root/.cache/npm/node_modules/.bin:$PATH
command -v conformance >/dev/null || { echo "the suite is not installed: make deps" >&2; exit 2; }
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

cd "$root"
go build -o "$work/everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server
go build -o "$work/mcpbridge" ./cmd/mcpbridge
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/everything" -http "127.0.0.1:$port" 2>"$work/direct.log" &
pids+=($!)
printf '{"mcpServers": {"everything": {"command": "%s", "namespace": "none", "required": true}}}\n' "$work/everything" >"$work/mcp.json"
"$work/mcpbridge" serve --config "$work/mcp.json" --http 127.0.0.1:0 2>"$work/gateway.log" &
pids+=($!)
for _ in $(seq 100); do
  grep -q 'mcpbridge gateway: ' "$work/gateway.log" && curl -s "http://127.0.0.1:$port" >/dev/null && break
  sleep 0.1
done
gateway=$(grep -o 'http://[^ ]*/mcp' "$work/gateway.log")

summary() { grep -a '^[✓✗] \|^Total' "$1" || true; }
(cd "$work" && conformance server --url "http://127.0.0.1:$port/" "$@" >"$work/direct.txt" 2>&1) || true
(cd "$work" && conformance server --url "$gateway" "$@" >"$work/gateway.txt" 2>&1) || true
echo "== direct (http://127.0.0.1:$port/)"; summary "$work/direct.txt"
echo "== through mcpbridge serve ($gateway)"; summary "$work/gateway.txt"
echo "== pass direct, fail through the gateway"
comm -23 <(grep -a '^✓ ' "$work/direct.txt" | cut -d: -f1 | cut -c5- | sort) <(grep -a '^✓ ' "$work/gateway.txt" | cut -d: -f1 | cut -c5- | sort)
