#!/usr/bin/env bash
# Runs the MCP client conformance suite against conformance/client, as
# `make test` does, and prints the per-scenario summary.
#
#   conformance/run.sh             every client scenario, judged against
#                                  conformance/baseline.yml
#   conformance/run.sh SCENARIO    one scenario, with each check's result
#
# Node 22 and the suite are installed into .cache/npm by `make npm` when
# missing. Results (checks.json, the client's stdout and stderr per
# scenario) go to .cache/conformance-results. Exits non-zero when a check
# fails that the baseline does not list, or a listed one now passes.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=$PWD/.cache/npm/node_modules/.bin
if [[ ! -x $bin/node || ! -x $bin/conformance || ! -x $bin/mcp-server-everything ]]; then
	make --no-print-directory npm
fi
client=$PWD/.cache/conformance-client
go build -o "$client" ./conformance/client

export PATH=$bin:$PATH
out=$PWD/.cache/conformance-results
rm -rf "$out"
if [[ $# -ge 1 ]]; then
	exec conformance client --scenario "$1" --command "$client" \
		--expected-failures conformance/baseline.yml -o "$out"
fi
log=$out.log
mkdir -p "$out"
status=0
conformance client --suite all --command "$client" \
	--expected-failures conformance/baseline.yml -o "$out" >"$log" 2>&1 || status=$?
sed -n '/=== SUITE SUMMARY ===/,$p' "$log"
if [[ $status -ne 0 ]]; then
	echo "conformance: exit $status; full output in $log" >&2
fi
exit $status
