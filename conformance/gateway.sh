#!/usr/bin/env bash
# The official MCP server conformance suite against go-sdk's conformance
# server (conformance/everything-server, in the go-sdk module we build on),
# at each revision the suite has a requirement set for (2025-11-25 with
# sessions, 2026-07-28 stateless): direct over streamable HTTP, and through
# mcpbridge serve, which serves both revisions on one endpoint, in front of
# the same server reached each way a config may reach it:
#
#   stdio          the server over stdio        conformance/gateway-baseline.yml
#   http           over streamable HTTP,        conformance/gateway-baseline-http.yml
#                  stateless (2026-07-28)
#   http-sessions  over streamable HTTP, with   conformance/gateway-baseline-http-sessions.yml
#                  sessions
#   cluster        over streamable HTTP,        conformance/gateway-baseline-http.yml
#                  stateless, behind three      (one gateway's in front of the same
#                  replicas sharing Redis       server: the cluster answers as one)
#                  (--store), behind HAProxy
#                  (deploy/haproxy.cfg)
#
#   conformance/gateway.sh          both revisions, direct and through the
#                                   gateway in front of each upstream: each
#                                   run's per-scenario summary, then what
#                                   passes direct and not through it
#   conformance/gateway.sh --check  through the gateway only, each upstream
#                                   judged against its baseline (make test):
#                                   exits non-zero on a failure the baseline
#                                   does not list, or a listed one that now
#                                   passes
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
upstreams=(stdio http http-sessions cluster)
declare -A baseline=(
	[stdio]=conformance/gateway-baseline.yml
	[http]=conformance/gateway-baseline-http.yml
	[http-sessions]=conformance/gateway-baseline-http-sessions.yml
	[cluster]=conformance/gateway-baseline-http.yml
)
for tool in redis-server haproxy; do
	command -v $tool >/dev/null || { echo "$tool is not installed: make deps" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
keep=false
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; $keep || rm -rf "$work"' EXIT

cd "$root"
go build -o "$work/everything" github.com/modelcontextprotocol/go-sdk/conformance/everything-server
go build -o "$work/mcpbridge" ./cmd/mcpbridge

# freeport: a port of loopback free now (the server takes no port 0).
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# everything PORT [FLAG]...: the server over streamable HTTP on PORT, once
# it answers.
everything() {
	local port=$1
	shift
	"$work/everything" -http "127.0.0.1:$port" "$@" 2>"$work/everything-$port.log" &
	pids+=($!)
	for _ in $(seq 100); do
		curl -s "http://127.0.0.1:$port" >/dev/null && return
		sleep 0.1
	done
	echo "the conformance server on port $port did not start" >&2
	cat "$work/everything-$port.log" >&2
	exit 1
}

# serve CONFIG LOG [FLAG]...: a gateway of CONFIG, logging to LOG, once
# its servers are up; its endpoint is in $endpoint.
serve() {
	local config=$1 log=$2
	shift 2
	"$work/mcpbridge" serve --config "$config" --http 127.0.0.1:0 "$@" 2>"$log" &
	local pid=$!
	pids+=($pid)
	# The gateway prints its URL once its servers are up.
	for _ in $(seq 300); do
		grep -q 'mcpbridge gateway: ' "$log" && break
		kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
		sleep 0.1
	done
	endpoint=$(grep -o 'http://[^ ]*/mcp' "$log")
}

# The gateway in front of each upstream; gateway[NAME] is its endpoint.
declare -A gateway
for up in "${upstreams[@]}"; do
	case $up in
	stdio)
		server=$(printf '"command": "%s"' "$work/everything") ;;
	http | cluster)
		# One server for the cluster's replicas, as a deployment's
		# servers that keep state are: a server over stdio would be
		# one a replica, each with its own state (a tool added on one
		# is not on the others).
		port=$(freeport)
		everything "$port"
		server=$(printf '"url": "http://127.0.0.1:%s/"' "$port") ;;
	http-sessions)
		port=$(freeport)
		everything "$port" -stateless=false
		server=$(printf '"url": "http://127.0.0.1:%s/"' "$port") ;;
	esac
	config=$work/mcp-$up.json
	printf '{"mcpServers": {"everything": {%s, "namespace": "none", "required": true}}}\n' "$server" >"$config"
	if [[ $up != cluster ]]; then
		serve "$config" "$work/gateway-$up.log"
		gateway[$up]=$endpoint
		continue
	fi
	# Redis, three replicas sharing it, HAProxy in front with the shipped
	# config.
	rport=$(freeport)
	redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >"$work/redis.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		grep -q 'Ready to accept connections' "$work/redis.log" && break
		sleep 0.1
	done
	env=()
	for i in 1 2 3; do
		serve "$config" "$work/gateway-$up-$i.log" --store "redis://127.0.0.1:$rport/0"
		env+=("MCPBRIDGE_REPLICA$i=${endpoint#http://}")
		env[-1]=${env[-1]%/mcp}
	done
	hport=$(freeport)
	env MCPBRIDGE_LISTEN=127.0.0.1:$hport "${env[@]}" haproxy -db -f deploy/haproxy.cfg >"$work/haproxy.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$hport/readyz" >/dev/null && break
		sleep 0.1
	done
	gateway[$up]=http://127.0.0.1:$hport/mcp
done

summary() { grep -a '^[✓✗] \|^Total' "$1" || true; }
passed() { grep -a '^✓ ' "$1" | cut -d: -f1 | cut -c5- | sort; }
# required REV: the server scenarios REV's requirement set scores.
required() { conformance list --server --requirements "$1" | sed -n '/^Server scenarios/,/^$/p' | grep '^  - ' | cut -c5- | sort; }
# scored FILE REV: how many of REV's scored scenarios pass in FILE.
scored() { echo "$(comm -12 <(passed "$1") <(required "$2") | wc -l) of $(required "$2" | wc -l) scored scenarios pass"; }

if $check; then
	status=0
	for up in "${upstreams[@]}"; do
		for rev in "${revisions[@]}"; do
			out=$work/gateway-$up-$rev.txt
			if conformance server --url "${gateway[$up]}" --requirements "$rev" \
				--expected-failures "${baseline[$up]}" -o "$work/results-$up-$rev" >"$out" 2>&1; then
				echo "conformance through mcpbridge serve, $up upstream, $rev: $(scored "$out" "$rev"), as ${baseline[$up]} expects"
			else
				status=1
				keep=true
				echo "conformance through mcpbridge serve, $up upstream, $rev: not as ${baseline[$up]} expects" >&2
				sed -n '/=== SUMMARY ===/,$p' "$out" >&2
				echo "full output: $out (the gateway's log: $work/gateway-$up*.log)" >&2
			fi
		done
	done
	exit $status
fi

for rev in "${revisions[@]}"; do
	mode=(-stateless=false)
	[[ $rev == 2026-07-28 ]] && mode=()
	port=$(freeport)
	everything "$port" "${mode[@]}"
	(cd "$work" && conformance server --url "http://127.0.0.1:$port/" --requirements "$rev" >"$work/direct.txt" 2>&1) || true
	echo "== $rev direct (http://127.0.0.1:$port/): $(scored "$work/direct.txt" "$rev")"
	summary "$work/direct.txt"
	for up in "${upstreams[@]}"; do
		out=$work/gateway-$up.txt
		(cd "$work" && conformance server --url "${gateway[$up]}" --requirements "$rev" >"$out" 2>&1) || true
		echo "== $rev through mcpbridge serve, $up upstream (${gateway[$up]}): $(scored "$out" "$rev")"
		summary "$out"
		echo "== $rev: pass direct, fail through the gateway ($up upstream)"
		comm -23 <(passed "$work/direct.txt") <(passed "$out")
	done
done
