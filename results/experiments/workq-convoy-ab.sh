#!/bin/sh
# The mutex work queue's convoy under metrics (results/notes.md, "The work
# queues' convoy under metrics"): BenchmarkWorkQueue's 8x8 pipeline cell,
# metrics on, over this checkout and over it with the two rejected
# variants (workq-observe-after-unlock.patch, then also
# workq-signal-every-add.patch), rounds interleaved, then benchstat.
#   sh results/experiments/workq-convoy-ab.sh 6
set -eu
rounds=${1:-6}
top=$(git rev-parse --show-toplevel)
here=$top/results/experiments
tmp=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$tmp/wt" 2>/dev/null; rm -rf "$tmp"' EXIT
git -C "$top" worktree add -q --detach "$tmp/wt" HEAD
(cd "$tmp/wt/bench" && go test -c -o "$tmp/main.test" .)
(cd "$tmp/wt" && git apply "$here/workq-observe-after-unlock.patch" && cd bench && go test -c -o "$tmp/observe.test" .)
(cd "$tmp/wt" && git apply "$here/workq-signal-every-add.patch" && cd bench && go test -c -o "$tmp/signal.test" .)
cell='BenchmarkWorkQueue/op=pipeline/producers=8/consumers=8/keys=1024/metrics=on/delayed=(0|1000)/impl=(clientgo|mutex|sharded)$'
for r in $(seq "$rounds"); do
	for v in main observe signal; do
		(cd "$top/bench" && "$tmp/$v.test" -test.run '^$' -test.bench "$cell" -test.benchtime 0.5s -test.cpu 2) |
			grep '^Benchmark' >>"$tmp/$v.txt"
	done
done
cd "$top/internal/lab"
go tool benchstat "main=$tmp/main.txt" "observe=$tmp/observe.txt" "signal=$tmp/signal.txt"
