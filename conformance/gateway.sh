#!/usr/bin/env bash
# The official MCP server conformance suite against go-sdk's conformance
# server (conformance/everything-server, in the go-sdk module we build on),
# at each revision the suite has a requirement set for (2025-11-25 with
# sessions, 2026-07-28 stateless): direct over streamable HTTP, and through
# mcpbridge serve, which runs the same server over stdio and serves both
# revisions on one endpoint.
#
#   conformance/gateway.sh          both revisions, direct and through the
#                                   gateway: each run's per-scenario summary,
#                                   then what passes direct and not through it
#   conformance/gateway.sh --check  through the gateway only, judged against
#                                   conformance/gateway-baseline.yml (make
#                                   test): exits non-zero on a failure the
#                                   baseline does not list, or a listed one
#                                   that now passes
#
# Direct, the server runs with sessions for 2025-11-25 (a stateless one
# cannot ask the client anything during a call) and stateless for
# 2026-07-28, each the mode in which it passes its revision's scenarios.
# Everything listens on loopback and is stopped on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=$root/.cache/npm/node_modules/.bin:$PATH
command -v conformance >/dev/null || { echo "the suite is not installed: make npm" >&2; exit 2; }
check=false
[[ ${1-} == --check ]] && check=true
revisions=(2025-11-25 2026-07-28)
work=$(mktemp -d)
pids=()
keep=false
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; $keep || rm -rf "$work"' EXIT

cd "$root"
go build -o "$work/everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server
go build -o "$work/mcpbridge" ./cmd/mcpbridge
printf '{"mcpServers": {"everything": {"command": "%s", "namespace": "none", "required": true}}}\n' "$work/everything" >"$work/mcp.json"
"$work/mcpbridge" serve --config "$work/mcp.json" --http 127.0.0.1:0 2>"$work/gateway.log" &
pids+=($!)
# The gateway prints its URL once its servers are up.
for _ in $(seq 300); do
	grep -q 'mcpbridge gateway: ' "$work/gateway.log" && break
	kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/gateway.log" >&2; exit 1; }
	sleep 0.1
done
gateway=$(grep -o 'http://[^ ]*/mcp' "$work/gateway.log")

summary() { grep -a '^[✓✗] \|^Total' "$1" || true; }
passed() { grep -a '^✓ ' "$1" | cut -d: -f1 | cut -c5- | sort; }
# required REV: the server scenarios REV's requirement set scores.
required() { conformance list --server --requirements "$1" | sed -n '/^Server scenarios/,/^$/p' | grep '^  - ' | cut -c5- | sort; }
# scored FILE REV: how many of REV's scored scenarios pass in FILE.
scored() { echo "$(comm -12 <(passed "$1") <(required "$2") | wc -l) of $(required "$2" | wc -l) scored scenarios pass"; }

if $check; then
	status=0
	for rev in "${revisions[@]}"; do
		out=$work/gateway-$rev.txt
		if conformance server --url "$gateway" --requirements "$rev" \
			--expected-failures conformance/gateway-baseline.yml -o "$work/results-$rev" >"$out" 2>&1; then
			echo "conformance through mcpbridge serve, $rev: $(scored "$out" "$rev"), as conformance/gateway-baseline.yml expects"
		else
			status=1
			keep=true
			echo "conformance through mcpbridge serve, $rev: not as conformance/gateway-baseline.yml expects" >&2
			sed -n '/=== SUMMARY ===/,$p' "$out" >&2
			echo "full output: $out (the gateway's log: $work/gateway.log)" >&2
		fi
	done
	exit $status
fi

for rev in "${revisions[@]}"; do
	mode=(-stateless=false)
	[[ $rev == 2026-07-28 ]] && mode=()
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	"$work/everything" -http "127.0.0.1:$port" "${mode[@]}" 2>"$work/direct-$rev.log" &
	pids+=($!)
	for _ in $(seq 100); do
		curl -s "http://127.0.0.1:$port" >/dev/null && break
		sleep 0.1
	done
	(cd "$work" && conformance server --url "http://127.0.0.1:$port/" --requirements "$rev" >"$work/direct.txt" 2>&1) || true
	(cd "$work" && conformance server --url "$gateway" --requirements "$rev" >"$work/gateway.txt" 2>&1) || true
	echo "== $rev direct (http://127.0.0.1:$port/): $(scored "$work/direct.txt" "$rev")"
	summary "$work/direct.txt"
	echo "== $rev through mcpbridge serve ($gateway): $(scored "$work/gateway.txt" "$rev")"
	summary "$work/gateway.txt"
	echo "== $rev: pass direct, fail through the gateway"
	comm -23 <(passed "$work/direct.txt") <(passed "$work/gateway.txt")
done
