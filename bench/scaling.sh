#!/bin/sh
# bench/scaling.sh: the scaling matrix (issue 27) — each family's
# contention benchmark, at one representative size, at every GOMAXPROCS in
# CPU, in COUNT interleaved rounds, into one raw file that `queuelab report`
# charts as a curve per family (x: the -N suffix of the benchmark names).
#
#   bench/scaling.sh build BIN   build the benchmark binary BIN and BIN.info
#   bench/scaling.sh run [BIN]   run the matrix with BIN (built first into a
#                                temporary directory when not given)
#
# `make bench-scaling [BENCHBIN=BIN]` runs `run`. A machine with many cores
# may have Go but no module cache and no network: build the binary where the
# modules are (`build`), carry BIN and BIN.info there with the tree, and run
# it there. BIN.info holds the header lines that describe the build (commit,
# go, client-go), recorded where the build happened because the run's
# machine may have no git history and no modules to ask.
#
# Environment (the Makefile passes its variables through):
#   CPU        GOMAXPROCS list, go test's -cpu (default 1,2,4,8,16)
#   COUNT      rounds; each runs every family once at every CPU (default 6)
#   BENCHTIME  go test's -benchtime (default 0.3s: the default matrix is
#              estimated at 6-7 minutes on 16 cores, from a round at
#              -cpu 1,2 on 2 shared cores; the script prints each family's
#              seconds per round on stderr, to resize it by)
#   STACKS     BenchmarkInformerContention's -contention.impls: the
#              shipped informer, the drop-in's defaults, and the lock-free
#              store under client-go's DeltaFIFO, the lock-free in-order
#              FIFO and the sharded DeltaFIFO (the one built for many cores)
#   MAX_SECONDS  stop after the round that another would take past this
#              many seconds (default 0: run every round)
#   RAW_DIR    where the raw file goes (default results/raw)
#   NOTE       recorded in the header
#   GO         the go command (default go)
set -eu

CPU=${CPU:-1,2,4,8,16}
COUNT=${COUNT:-6}
BENCHTIME=${BENCHTIME:-0.3s}
STACKS=${STACKS:-clientgo,mutex+inorder-mutex,lockfree+clientgo,lockfree+inorder-lockfree,lockfree+deltafifo-mutex}
MAX_SECONDS=${MAX_SECONDS:-0}
RAW_DIR=${RAW_DIR:-results/raw}
NOTE=${NOTE:-}
GO=${GO:-go}

root=$(cd "$(dirname "$0")/.." && pwd)

# families: one line per family, "<-bench pattern> <-skip pattern> [flag]"
# (the skip pattern "-" skips nothing). Each is the benchmark whose point is
# contention, at one size; the store's is its scan contention (issue 7),
# the writer against listers that the informer's also measures. The queue families' closed pipelines have 8
# producers and 8 consumers (the priority queue's 8 workers): 16 goroutines
# keep 16 Ps busy without a run queue behind every P. The level
# ^(metrics=on|impl=.*)$ picks the metrics=on level where a benchmark has
# one (issue 26) and the implementations where it does not; the skip
# pattern then drops delayed=0, so such a benchmark runs at the headline's
# metrics=on/delayed=1000 only, and one without those levels runs whole.
families() {
	cat <<EOF
^BenchmarkInformerContention$/^shape=clientgo$/^objects=40000$/^readers=10$ - -contention.impls=$STACKS
^BenchmarkStoreScanContention$/^op=scan-contention$/^objects=40000$/^readers=10$ -
^BenchmarkWorkQueue$/^op=pipeline$/^producers=8$/^consumers=8$/^keys=1024$/^(metrics=on|impl=.*)$ ^BenchmarkWorkQueue$/^op=pipeline$/^producers=8$/^consumers=8$/^keys=1024$/^metrics=on$/^delayed=0$
^BenchmarkPriorityQueue$/^op=pipeline$/^workers=8$/^keys=100000$/^(metrics=on|impl=.*)$ ^BenchmarkPriorityQueue$/^op=pipeline$/^workers=8$/^keys=100000$/^metrics=on$/^delayed=0$
^BenchmarkInOrderFIFO$/^op=pipeline$/^producers=8$/^objects=10000$ -
EOF
}

# info prints the header lines that describe the build of the tree at root.
info() {
	sha=$(git -C "$root" rev-parse HEAD)
	if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then sha=$sha-dirty; fi
	echo "commit: $sha"
	echo "go: $($GO env GOVERSION)"
	echo "client-go: $(cd "$root" && $GO list -m -f '{{.Version}}' k8s.io/client-go)"
}

build() {
	bin=$1
	case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
	mkdir -p "$(dirname "$bin")"
	# CGO_ENABLED=0: the binary must start on a machine whose C library
	# may differ from this one's; stripped, it is small enough to carry.
	(cd "$root" && CGO_ENABLED=0 $GO test -c -vet=off -ldflags='-s -w' -o "$bin" ./bench)
	info >"$bin.info"
	echo "built $bin ($(sed -n 's/^commit: //p' "$bin.info"))"
}

run() {
	bin=${1:-}
	if [ -z "$bin" ]; then
		tmp=$(mktemp -d)
		trap 'rm -rf "$tmp"' EXIT
		bin=$tmp/bench.test
		build "$bin"
	fi
	case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
	[ -x "$bin" ] || { echo "scaling.sh: $bin is not an executable benchmark binary" >&2; exit 2; }
	if [ -f "$bin.info" ]; then binfo=$(cat "$bin.info"); else binfo=$(info); fi
	sha=$(echo "$binfo" | sed -n 's/^commit: //p')
	short=$(echo "$sha" | cut -c1-7)
	case $sha in *-dirty) short=$short-dirty ;; esac
	host=$(uname -n | cut -d. -f1 | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-')
	case $RAW_DIR in /*) dir=$RAW_DIR ;; *) dir=$root/$RAW_DIR ;; esac
	mkdir -p "$dir"
	out=$dir/$(date -u +%Y%m%d)-$short-$host-scaling.txt
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
	{
		echo "commit: $sha"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "$binfo" | grep -v '^commit: '
		echo "cpu: ${cpu:-$(uname -m)} ($(nproc) CPUs)"
		echo "note: $NOTE"
		echo "bench-command: CPU=$CPU COUNT=$COUNT BENCHTIME=$BENCHTIME STACKS=$STACKS bench/scaling.sh run"
		echo "load-command: "
	} >"$out.partial"
	echo "writing $out"
	start=$(date +%s)
	# The benchmarks run in the package directory, as go test runs them.
	cd "$root/bench"
	for round in $(seq "$COUNT"); do
		families | while read -r pattern skip flag; do
			[ "$skip" = - ] && skip='^$'
			t0=$(date +%s)
			# shellcheck disable=SC2086 # flag is one word or none
			"$bin" -test.run '^$' -test.bench "$pattern" -test.skip "$skip" -test.count 1 \
				-test.cpu "$CPU" -test.benchtime "$BENCHTIME" -test.timeout 60m $flag 2>&1 || {
				echo "round $round: $pattern failed"
				exit 1
			}
			echo "round $round: $(($(date +%s) - t0))s ${pattern%%/*}" >&2
		done || {
			mv "$out.partial" "$out.failed"
			echo "benchmarks failed: output kept in $out.failed"
			exit 1
		}
		elapsed=$(($(date +%s) - start))
		echo "round $round of $COUNT done after ${elapsed}s" >&2
		# Stop where another round of this one's length would pass
		# MAX_SECONDS: fewer rounds, but a whole file, where the machine's
		# lease would cut the last round short and keep nothing.
		if [ "$MAX_SECONDS" -gt 0 ] && [ "$round" -lt "$COUNT" ] &&
			[ $((elapsed + elapsed / round)) -gt "$MAX_SECONDS" ]; then
			echo "stopping after $round of $COUNT rounds: another would pass MAX_SECONDS=$MAX_SECONDS" >&2
			break
		fi
	done | tee -a "$out.partial"
	# A failed round renamed the file; tee's status hides the loop's.
	[ -f "$out.partial" ] || exit 1
	mv "$out.partial" "$out"
	echo "saved $out"
}

case ${1:-} in
build) [ $# = 2 ] || { echo "usage: $0 build BIN" >&2; exit 2; }; build "$2" ;;
run) shift; run "$@" ;;
*) echo "usage: $0 build BIN | run [BIN]" >&2; exit 2 ;;
esac
