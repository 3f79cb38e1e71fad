# queuelab — the verbs people type. `make help` lists them.
# Every variable below can be overridden: make bench COUNT=10 CPU=1,2,4

GO        ?= go
# The library is the root module; the lab's tooling (internal/lab, loadgen,
# bench, cmd) are modules of their own, tied together by go.work, so that a
# controller importing a queue does not inherit charts, profiles and
# histograms. ./... stops at a module boundary, so each is named.
MODULES   := . queues/priorityq internal/lab loadgen bench cmd
PKGS      ?= $(patsubst %,./%/...,$(filter-out .,$(MODULES))) ./...
# Benchmark selection and sizing. COUNT>=6 is what benchstat needs for
# confidence intervals; CPU is passed to -cpu (GOMAXPROCS only via -cpu).
# The defaults run the whole matrix (171 benchmarks) in about 15 minutes on
# 2 cores: 0.5s is millions of iterations for the per-operation
# benchmarks and several relists for the slowest.
# COUNT is a number of rounds, each running the selection once (-count 1),
# not go test's -count: that runs a benchmark's samples back to back, so
# client-go's six and ours came from different minutes of a machine whose
# speed drifts. Rounds interleave every implementation's samples over the
# whole run, and drift widens every spread alike instead of tilting ratios.
BENCH     ?= .
COUNT     ?= 6
CPU       ?= 2
BENCHTIME ?= 0.5s
BENCHPKG  ?= ./bench
NOTE      ?=
# Load generator: flags for `queuelab run` (see `go run ./cmd/queuelab run -h`).
# `make load` shows medians of LOAD_COUNT interleaved rounds; bench-save runs
# every scenario the lab's load claims rest on, SAVE_LOAD_COUNT rounds each.
LOAD_COUNT ?= 3
LOAD_FLAGS ?=
SAVE_LOAD_COUNT ?= 6
SAVE_LOAD_SCENARIOS ?= default,half-load,relist-storm,store-contention
# bench-save: where raw result files go; NOTE is recorded in their header.
# RAW_TAG names a partial run (one family's matrix): <date>-<sha>-<host>-<tag>.txt.
# An empty SAVE_LOAD_SCENARIOS saves the benchmarks alone.
RAW_DIR   ?= results/raw
RAW_TAG   ?=
# compare: one file (ratios to clientgo) or OLD and NEW. GATE=1 turns on the
# regression gate, which fails on a significant worsening beyond TOLERANCE
# for the implementations in GATE_IMPL. The gate makes one test per
# benchmark, implementation and metric: about 1,200 for a full run with
# GATE_IMPL=all, so at alpha 0.05 dozens would be flagged by chance.
# GATE_ALPHA=0.01 cuts that to a handful while six samples a side still
# detect a clean shift (their smallest p-value is 0.002). No alpha removes
# drift of the machine between runs:
# `make compare OLD=results/raw/20261121-2600db1-vm.txt NEW=results/raw/20261121-7bc43f2-vm.txt GATE=1 TOLERANCE=0% GATE_IMPL=clientgo`
# flags 24 of client-go's own 139 comparisons as regressions (28 with
# GATE_ALPHA=0.05), so gate only runs taken back to back on one machine.
OLD ?=
NEW ?=
GATE ?=
TOLERANCE ?= 5%
GATE_IMPL ?= all
GATE_ALPHA ?= 0.01
# profile: one benchmark (every name level up to impl, e.g.
# BENCH='BenchmarkWorkQueue/op=pipeline/producers=8/consumers=8/keys=1024')
# and one implementation; profiles and the benchmark output go to PROFILE_DIR.
IMPL ?= clientgo
PROFILE_DIR ?= profiles
PROFILE_BENCHTIME ?= 2s
# report: flags for `queuelab report` (see `go run ./cmd/queuelab report -h`).
REPORT_FLAGS ?=

comma := ,

# bench and bench-save run this; bench-save also records it in its header.
# The subshell lets a failing round stop the rounds with its status, and
# the line be pasted into an interactive shell without closing it.
BENCH_ROUNDS = (for round in $(shell seq $(COUNT)); do $(GO) test -run '^$$' -bench '$(BENCH)' -count 1 -cpu $(CPU) -benchtime $(BENCHTIME) -timeout 60m $(BENCHPKG) || exit; done)

.DEFAULT_GOAL := help

.PHONY: help
help: ## List the targets and what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: test
test: ## Run every test under the race detector (conformance suites included)
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

.PHONY: race
race: ## Stress the conformance suites (hammers, drain stress, differential checks) 5 times over under -race
	$(GO) test -race -count=5 -timeout 30m ./queues/... ./stores/... ./internal/...

# linearize: porcupine checks of every queue and store against sequential
# models (internal/lab/linearize). make test runs the same tests with seed 1
# and 40 histories; this is the longer run, with a new seed each time
# (printed, so a failure can be rerun with LINEARIZE_SEED=...).
LINEARIZE_SEED      ?= $(shell date +%s)
LINEARIZE_HISTORIES ?= 200

.PHONY: linearize
linearize: ## Linearizability of every family × implementation (upstream as control) and proof the checker catches broken variants (LINEARIZE_SEED, LINEARIZE_HISTORIES)
	$(GO) test -count=1 -v -timeout 60m -run '^(TestLinearize|TestBrokenVariantsCaught)$$' ./internal/lab/linearize/ \
	  -args -linearize.seed=$(LINEARIZE_SEED) -linearize.histories=$(LINEARIZE_HISTORIES) -linearize.undecided-fails

.PHONY: lint
lint: ## gofmt and go vet
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)

.PHONY: bench-smoke
bench-smoke: ## Run every benchmark once (-benchtime=1x) so none can rot
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 15m $(PKGS)

.PHONY: bench
bench: ## The full benchmark matrix, COUNT interleaved rounds (COUNT, CPU, BENCH, BENCHTIME)
	$(BENCH_ROUNDS)

# The raw file's header: which code, toolchain, client-go and CPU produced
# it. A tree with uncommitted changes to tracked files is labelled -dirty:
# its numbers are not the commit's. Load runs are appended to the same file
# after a "pkg:" line that clears go test's package, so one raw file is one complete lab run and `make report` and
# `make compare` need only that file. A failed run is kept as .failed, which
# the report never picks up.
.PHONY: bench-save
bench-save: ## Run the matrix and the load scenarios (SAVE_LOAD_SCENARIOS) into RAW_DIR/<date>-<sha>-<host>.txt (NOTE=...)
	@set -e; mkdir -p $(RAW_DIR); \
	  sha=$$(git rev-parse HEAD); short=$$(git rev-parse --short HEAD); \
	  if [ -n "$$(git status --porcelain --untracked-files=no)" ]; then sha=$$sha-dirty; short=$$short-dirty; fi; \
	  host=$$(uname -n | cut -d. -f1 | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-'); \
	  out=$(RAW_DIR)/$$(date -u +%Y%m%d)-$$short-$$host$(if $(RAW_TAG),-$(RAW_TAG)).txt; \
	  cpu=$$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1); \
	  bench="$(BENCH_ROUNDS)"; \
	  load="$(GO) run ./cmd/queuelab run --bench --quiet --scenario $(SAVE_LOAD_SCENARIOS) --count $(SAVE_LOAD_COUNT) $(LOAD_FLAGS)"; \
	  { echo "commit: $$sha"; echo "date: $$(date -u +%Y-%m-%dT%H:%M:%SZ)"; \
	    echo "go: $$($(GO) env GOVERSION)"; echo "client-go: $$($(GO) list -m -f '{{.Version}}' k8s.io/client-go)"; \
	    echo "cpu: $${cpu:-$$(uname -m)}"; echo "note: $(NOTE)"; \
	    echo "bench-command: $$bench"; echo "load-command: $$load"; } > $$out.partial; \
	  echo "writing $$out"; \
	  { rc=0; sh -c "$$bench" 2>&1 || rc=$$?; echo $$rc > $$out.rc; } | tee -a $$out.partial; \
	  if [ -n "$(SAVE_LOAD_SCENARIOS)" ]; then echo "pkg:" >> $$out.partial; \
	    { rc=0; $$load 2>&1 || rc=$$?; echo $$rc >> $$out.rc; } | tee -a $$out.partial; fi; \
	  if [ ! -s $$out.rc ] || grep -qv '^0$$' $$out.rc; then rm -f $$out.rc; mv $$out.partial $$out.failed; echo "benchmarks failed: output kept in $$out.failed"; exit 1; fi; \
	  rm -f $$out.rc; mv $$out.partial $$out; echo "saved $$out"

# bench-scaling: bench/scaling.sh runs each family's contention benchmark at
# one size at every GOMAXPROCS in CPU (default 1,2,4,8,16 here), COUNT
# interleaved rounds, into RAW_DIR/<date>-<sha>-<host>-scaling.txt, which
# `make report` charts as one curve per implementation. BENCHBIN runs a
# prebuilt binary (`sh bench/scaling.sh build bench.test` builds one and
# bench.test.info beside it) on a machine without modules or network.
# BENCHTIME 0.3s keeps the default matrix under 8 minutes on 16 cores.
BENCHBIN ?=
# MAX_SECONDS: start no round that would end past it (0: no limit), so a
# machine lent for minutes returns a whole file of fewer rounds.
MAX_SECONDS ?= 0
.PHONY: bench-scaling
bench-scaling: CPU = 1,2,4,8,16
bench-scaling: BENCHTIME = 0.3s
bench-scaling: ## Contention benchmarks at GOMAXPROCS 1..16 into RAW_DIR/<date>-<sha>-<host>-scaling.txt (CPU, COUNT, BENCHTIME, BENCHBIN=prebuilt bench.test)
	CPU='$(CPU)' COUNT='$(COUNT)' BENCHTIME='$(BENCHTIME)' MAX_SECONDS='$(MAX_SECONDS)' RAW_DIR='$(RAW_DIR)' NOTE='$(NOTE)' GO='$(GO)' sh bench/scaling.sh run $(BENCHBIN)

# scale (issue 27): the scale and scale-200k load scenarios (1,000,000
# small pods; 200,000 at the default payload) over client-go's informer,
# the drop-in built with zero Options and the best stack, SCALE_COUNT
# interleaved rounds, into RAW_DIR/<date>-<sha>-<host>-scale.txt through
# bench-save (no benchmarks). Not part of ci or test: on 2 cores one round
# of scale took 2.5 minutes and 6 GiB peak RSS, of scale-200k under 2
# minutes, so the default 3 rounds take about 13 minutes. SCALE_FLAGS go to
# `queuelab run` (e.g. --objects 20000 for a quick check of the target).
SCALE_COUNT ?= 3
SCALE_FLAGS ?=
.PHONY: scale
scale: ## Time to synced, informer heap per object, heap and staleness in relists at 1M and 200k pods into RAW_DIR/<date>-<sha>-<host>-scale.txt (SCALE_COUNT, SCALE_FLAGS, NOTE)
	$(MAKE) bench-save BENCH=NONE COUNT=1 SAVE_LOAD_SCENARIOS=scale,scale-200k SAVE_LOAD_COUNT='$(SCALE_COUNT)' \
	  RAW_TAG=scale LOAD_FLAGS='$(SCALE_FLAGS)' NOTE='$(NOTE)'

.PHONY: compare
compare: ## Compare result files: OLD=f (ratios to clientgo) or OLD=a NEW=b; GATE=1 [TOLERANCE=5% GATE_IMPL=all GATE_ALPHA=0.01] fails on regressions
	@test -n "$(OLD)" || { echo "usage: make compare OLD=file [NEW=file] [GATE=1 TOLERANCE=5% GATE_IMPL=name,... GATE_ALPHA=0.01]"; exit 2; }
	$(GO) run ./cmd/queuelab compare $(if $(GATE),--gate --tolerance '$(TOLERANCE)' --impl '$(GATE_IMPL)' --alpha '$(GATE_ALPHA)') $(OLD) $(NEW)

# Two runs: mutex and block profiling at full rate would distort the CPU and
# allocation profiles.
.PHONY: profile
profile: ## CPU, heap, mutex and block profiles of BENCH for IMPL (default clientgo) into PROFILE_DIR, then a summary
	@case '$(BENCH)' in ''|.) echo "usage: make profile BENCH='BenchmarkX/op=.../keys=...' [IMPL=clientgo] (every name level up to impl)"; exit 2;; esac
	@set -e; mkdir -p $(PROFILE_DIR); dir=$(abspath $(PROFILE_DIR)); \
	  run() { { $(GO) test -run '^$$' -bench '$(BENCH)/impl=$(IMPL)$$' -count 1 -cpu $(firstword $(subst $(comma), ,$(CPU))) \
	      -benchtime $(PROFILE_BENCHTIME) -outputdir $$dir "$$@" $(BENCHPKG) 2>&1; echo $$? > $$dir/rc; } | tee -a $$dir/bench.txt; \
	      [ "$$(cat $$dir/rc)" = 0 ]; }; \
	  : > $$dir/bench.txt; \
	  run -cpuprofile cpu.pprof -memprofile mem.pprof; \
	  run -mutexprofile mutex.pprof -mutexprofilefraction 1 -blockprofile block.pprof -blockprofilerate 1; \
	  rm -f $$dir/rc; \
	  grep -q '^Benchmark.*impl=$(IMPL)' $$dir/bench.txt || { echo "no benchmark matched '$(BENCH)/impl=$(IMPL)$$' in $(BENCHPKG)"; exit 1; }
	$(GO) run ./cmd/queuelab profile $(PROFILE_DIR)/cpu.pprof $(PROFILE_DIR)/mem.pprof $(PROFILE_DIR)/mutex.pprof $(PROFILE_DIR)/block.pprof

.PHONY: report
report: ## Regenerate results/README.md, charts and the README headline, each family from the newest raw file that has it (REPORT_FLAGS=--check: verify only)
	$(GO) run ./cmd/queuelab report $(REPORT_FLAGS)

.PHONY: ci
ci: lint test bench-smoke lean compat ## What CI runs: lint, race-enabled tests, every benchmark once, the lean-library check, the library at its minimum versions

.PHONY: tidy
tidy: ## go mod tidy in every module
	@set -e; for m in $(MODULES); do echo "tidy $$m"; (cd $$m && GOWORK=off $(GO) mod tidy); done

.PHONY: load
load: ## The lab's main job: the default scenario over every implementation stack vs client-go, medians of LOAD_COUNT rounds
	$(GO) run ./cmd/queuelab run --count $(LOAD_COUNT) $(LOAD_FLAGS)

# lean: scratch controller modules import queues/workq + the informer, and
# queues/priorityq, through replace lines to this checkout (GOWORK=off); for
# each, the requirements of every queuelab module in its go mod graph are
# printed beside those of client-go (for the root module) or
# controller-runtime (for priorityq), and the check fails if queuelab
# requires anything more or newer, or if the lab's tooling (and, for the
# client-go-only importer, controller-runtime or Prometheus) is in the graph.
.PHONY: lean
lean: ## Show what an importer's module graph gets from queuelab: nothing beyond client-go (workq, informer) or controller-runtime (priorityq)
	GO='$(GO)' GOWORK=off $(GO) run ./scripts/lean

# compat: the library alone (GOWORK=off), at the minimum versions its go.mod
# requires (the oldest client-go it compiles against), where the workspace
# builds it with the lab's newer ones.
.PHONY: compat
compat: ## Vet and test the root module alone against its minimum client-go (go.mod), outside the workspace
	GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test -count=1 -timeout 15m ./...

# e2e: the controller scenarios against a real kube-apiserver and etcd,
# started by controller-runtime's envtest as controller authors do.
# loadgen/e2e/assets.sh builds kube-apiserver from the k8s.io/kubernetes
# module once (about 12 minutes on 2 cores, cached under ~/.cache/queuelab)
# and installs Debian's etcd-server with apt-get if etcd is missing.
# E2E_RESTART=0.5 stops kube-apiserver once half of each run's writes were
# accepted, keeps it down E2E_RESTART_DOWN and starts it again (etcd kept);
# every run must then drain within E2E_CONVERGE (default 75s) of its end.
E2E_SCENARIOS ?= controller-kcm,controller-restart,controller-wide,controller-plain
E2E_COUNT     ?= 1
E2E_OBJECTS   ?= 1000
E2E_EVENTS    ?= 2000
E2E_BENCH     ?=
E2E_RESTART   ?=
E2E_RESTART_DOWN ?= 3s
E2E_CONVERGE  ?=

.PHONY: e2e
e2e: ## Controller scenarios against a real kube-apiserver + etcd via envtest (builds them if missing; E2E_SCENARIOS, E2E_COUNT, E2E_BENCH=file, E2E_RESTART=fraction)
	@set -e; assets=$$(sh loadgen/e2e/assets.sh); \
	  KUBEBUILDER_ASSETS=$$assets E2E_SCENARIOS='$(E2E_SCENARIOS)' E2E_COUNT=$(E2E_COUNT) \
	  E2E_RESTART='$(E2E_RESTART)' E2E_RESTART_DOWN=$(E2E_RESTART_DOWN) E2E_CONVERGE='$(E2E_CONVERGE)' \
	  E2E_OBJECTS=$(E2E_OBJECTS) E2E_EVENTS=$(E2E_EVENTS) E2E_BENCH='$(if $(E2E_BENCH),$(abspath $(E2E_BENCH)))' \
	  $(GO) test -tags e2e -count=1 -timeout 90m -v -run TestControllersAgainstAPIServer ./loadgen/e2e/
