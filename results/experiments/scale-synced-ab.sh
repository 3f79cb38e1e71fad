#!/bin/sh
# Time to synced at 1M pods for the drop-in's default stack, built at two
# commits, one run per fresh process, alternating, so every run pays the
# heap's growth alike (results/notes.md, "Chunked notifications").
#   sh results/experiments/scale-synced-ab.sh f6b690f 1726547 4
set -eu
old=$1 new=$2 rounds=${3:-4}
top=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$tmp/old" 2>/dev/null; git -C "$top" worktree remove --force "$tmp/new" 2>/dev/null; rm -rf "$tmp"' EXIT
for side in old new; do
	eval rev=\$$side
	git -C "$top" worktree add -q --detach "$tmp/$side" "$rev"
	(cd "$tmp/$side" && go build -o "$tmp/ql-$side" ./cmd/queuelab)
done
cd "$tmp"
for r in $(seq "$rounds"); do
	for side in old new; do
		"$tmp/ql-$side" run --scenario scale --impl default --count 1 --bench 2>/dev/null |
			awk -v side="$side" '/^BenchmarkScale/ { for (i = 1; i <= NF; i++) if ($i == "synced_ns") s = $(i-1);
				printf "%s round %s: synced %.2f s\n", side, r, s / 1e9 }' r="$r"
	done
done
