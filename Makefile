# Workbench. `make run` serves on the embedded SQLite default; `make test` runs go vet and every test, the
# import rules included (`make lint` also runs those on their own). What the tests need and the settings the
# benchmarks read: docs/testing.md and docs/benchmarks.md.
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

# Each benchmark prints its own summary lines; PostgreSQL cases run when WORKBENCH_TEST_POSTGRES_URL is set,
# the replica figures when WORKBENCH_TEST_NATS_URL is also set (the other WORKBENCH_BENCH_* settings:
# docs/benchmarks.md).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 30m ./eventstore/benchmarks/
	$(GO) test -run '^$$' -bench BenchmarkRebuild -benchtime 1x -count 1 -timeout 30m ./projections/
	$(GO) test -run '^$$' -bench BenchmarkAsOf -benchtime 3x -count 1 -timeout 30m ./projections/auditrm/
	$(GO) test -run '^$$' -bench BenchmarkMCPEndToEnd -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkMCPScaling -benchtime 1x -count 1 -timeout 20m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkMCPUnderJotPasswordFlood -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkConnectorRemoteCall -benchtime 1x -count 1 -timeout 10m ./cmd/workbench/
	$(GO) test -run '^$$' -bench BenchmarkProxy -benchtime 1x -count 1 -timeout 10m ./handlers/proxy/
	$(GO) test -run '^$$' -bench BenchmarkBrowser -benchtime 1x -count 1 -timeout 10m ./app/browser/
	WORKBENCH_REPLICA_FIGURES=1 $(GO) test -v -run '^TestReplicaFigures$$' -count 1 -timeout 15m ./cmd/workbench/
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 60m ./app/compliance/auditchain/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)
	$(GO) test -count=1 -run '^(TestImportRules|TestInnerRules|TestHandlersNeverWrite|TestPackageNamesUnique)$$' .

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
