# queuelab — the verbs people type. `make help` lists them.
# Every variable below can be overridden: make bench COUNT=10 CPU=1,2,4

GO        ?= go
PKGS      ?= ./...
# Benchmark selection and sizing. COUNT>=6 is what benchstat needs for
# confidence intervals; CPU is passed to -cpu (GOMAXPROCS only via -cpu).
BENCH     ?= .
COUNT     ?= 6
CPU       ?= 2
BENCHTIME ?= 1s
BENCHPKG  ?= ./bench
NOTE      ?=
# Load generator: flags for `queuelab run` (see `go run ./cmd/queuelab run -h`).
LOAD_FLAGS ?=
# compare: two benchmark files.
OLD ?=
NEW ?=
# profile: one benchmark and one implementation.
IMPL ?= clientgo
PROFILE_DIR ?= profiles

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets and what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: test
test: ## Run every test under the race detector (conformance suites included)
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

.PHONY: race
race: ## Stress only the concurrency tests (hammers, differential checks) 5 times over
	$(GO) test -race -count=5 -timeout 30m -run 'Hammer|Differential|Concurrent' $(PKGS)

.PHONY: lint
lint: ## gofmt and go vet
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

.PHONY: bench-smoke
bench-smoke: ## Run every benchmark once (-benchtime=1x) so none can rot
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 15m $(PKGS)

.PHONY: bench
bench: ## The full benchmark matrix (COUNT, CPU, BENCH, BENCHTIME)
	$(GO) test -run '^$$' -bench '$(BENCH)' -count $(COUNT) -cpu $(CPU) -benchtime $(BENCHTIME) -timeout 60m $(BENCHPKG)

.PHONY: ci
ci: lint test bench-smoke ## What CI runs: lint, race-enabled tests, every benchmark once

.PHONY: tidy
tidy: ## go mod tidy
	$(GO) mod tidy

.PHONY: load
load: ## Load-test the default scenario over every implementation stack, client-go as baseline (LOAD_FLAGS)
	$(GO) run ./cmd/queuelab run $(LOAD_FLAGS)
