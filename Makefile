# Workbench. `make run` serves on the embedded SQLite default; `make test` runs every test (PostgreSQL
# and NATS paths run when WORKBENCH_TEST_POSTGRES_URL / WORKBENCH_TEST_NATS_URL are set, as .ci/run does).
GO        ?= go
BIN       ?= bin/workbench
PKGS      ?= ./...
TESTFLAGS ?= -race -count=1 -timeout 20m

.PHONY: build run test bench lint fmt clean

build:
	$(GO) build -o $(BIN) ./cmd/workbench

run: build
	./$(BIN) serve

test:
	$(GO) vet $(PKGS)
	$(GO) test $(TESTFLAGS) $(PKGS)

# Benchmarks print their own summary lines (append backend=…, rebuild …); PostgreSQL cases run when
# WORKBENCH_TEST_POSTGRES_URL is set.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 30m ./eventstore/benchmarks/ ./projections/

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
