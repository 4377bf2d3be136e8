# Workbench. `make run` serves on the embedded SQLite default; `make test` runs every test (PostgreSQL
# and NATS paths run when WORKBENCH_TEST_POSTGRES_URL / WORKBENCH_TEST_NATS_URL are set, as .ci/run does),
# including the repository's import rules (importrules_test.go), which `make lint` also runs on its own.
GO        ?= go
BIN       ?= bin/workbench
PKGS      ?= ./...
TESTFLAGS ?= -race -count=1 -timeout 20m

.PHONY: build run test bench lint fmt clean

# VERSION is what `workbench version` and MCP serverInfo report; without git, the binary falls back on
# its build info, then "dev".
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null)

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/workbench

run: build
	./$(BIN) serve

test:
	$(GO) vet $(PKGS)
	$(GO) test $(TESTFLAGS) $(PKGS)

# Benchmarks print their own summary lines (append backend=…, rebuild …, mcp_e2e …, mcp_scale …, jot_flood …, proxy …,
# browser …, replicas …); PostgreSQL cases run when WORKBENCH_TEST_POSTGRES_URL is set, the replica figures
# when WORKBENCH_TEST_NATS_URL is also set. The end-to-end MCP benchmark
# measures each phase for WORKBENCH_BENCH_SECONDS (default 10) and writes CPU, block and mutex profiles of its MCP
# phase into WORKBENCH_BENCH_PROFILE_DIR when set. The scaling table (1-128 clients on logs of 1k, 100k and 1M events,
# all served at once) measures each cell for WORKBENCH_BENCH_SCALE_SECONDS per size (default 2), in rounds that
# alternate the sizes; WORKBENCH_BENCH_SCALE_EVENTS picks the log sizes.
# The audit chain benchmark verifies WORKBENCH_BENCH_CHAIN_EVENTS events (default 1,000,000) and measures appends
# with the sealer off and on (the on/off ratio).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 30m ./eventstore/benchmarks/
	$(GO) test -run '^$$' -bench BenchmarkRebuild -benchtime 1x -count 1 -timeout 30m ./projections/
	$(GO) test -run '^$$' -bench BenchmarkAsOf -benchtime 3x -count 1 -timeout 30m ./projections/audit/
	$(GO) test -run '^$$' -bench BenchmarkMCPEndToEnd -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkMCPScaling -benchtime 1x -count 1 -timeout 20m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkMCPUnderJotPasswordFlood -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkConnectorRemoteCall -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkProxy -benchtime 1x -count 1 -timeout 10m ./handlers/proxy/
	$(GO) test -run '^$$' -bench BenchmarkBrowser -benchtime 1x -count 1 -timeout 10m ./app/browser/
	WORKBENCH_REPLICA_FIGURES=1 $(GO) test -v -run '^TestReplicaFigures$$' -count 1 -timeout 15m ./cmd/workbench/
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 60m ./internal/auditchain/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)
	$(GO) test -count=1 -run '^(TestImportRules|TestHandlersNeverWrite|TestImportAliases)$$' .

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
