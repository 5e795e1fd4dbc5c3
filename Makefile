# The test command of the README: installs what the tests need into .cache/
# (ignored by git), then vets, checks formatting and runs every test with the
# race detector. CI runs exactly this through .ci/run.

NPM_DIR := $(CURDIR)/.cache/npm
EVERYTHING := @modelcontextprotocol/server-everything@2026.8.31

.PHONY: test deps vet fmt-check demo

test: deps vet fmt-check
	MCPBRIDGE_NPM_DIR=$(NPM_DIR) go test -race -count=1 ./...

deps: $(NPM_DIR)/node_modules/.bin/mcp-server-everything

$(NPM_DIR)/node_modules/.bin/mcp-server-everything:
	mkdir -p $(NPM_DIR)
	npm install --prefix $(NPM_DIR) --no-audit --no-fund --loglevel=error $(EVERYTHING)

vet:
	go vet ./...

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

demo:
	go run ./cmd/mcpbridge tools
