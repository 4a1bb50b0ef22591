#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The rotation of tests/vm/run --slice, for the N that scripts/test uses:
# the slices are disjoint, none runs a pair the matrix runs, and the matrix
# and the N slices together are the full run (CRYPTOPRIO_VM_ALL_KERNELS=1),
# each pair once. Only tests/vm/run --list: no VM, no root.
#
# usage: check-slices.sh TESTS_VM_RUN SCRIPTS_TEST
set -euo pipefail
run=$1 script=$2
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

n_slices=$(sed -n 's/^vm_slices=\([0-9][0-9]*\)$/\1/p' "$script")
if [[ -z $n_slices ]]; then
	echo "Bail out! no line vm_slices=N in $script"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset CRYPTOPRIO_VM_SCENARIOS
# The runner's helpers ask apt for the Debian mirror unless told: not needed.
export CRYPTOPRIO_VM_MIRROR=unused CRYPTOPRIO_VM_SECURITY_MIRROR=unused

# Every listing at once (each sources the runner's helpers, ~1-2 s).
arches=(-a x86_64 -a arm64 -a armhf)
CRYPTOPRIO_VM_ALL_KERNELS=1 "$run" --list "${arches[@]}" >"$tmp/full" 2>"$tmp/full.err" &
env -u CRYPTOPRIO_VM_ALL_KERNELS "$run" --list "${arches[@]}" >"$tmp/matrix" 2>"$tmp/matrix.err" &
for ((i = 1; i <= n_slices; i++)); do
	env -u CRYPTOPRIO_VM_ALL_KERNELS "$run" --list "${arches[@]}" --slice "$i/$n_slices" \
		>"$tmp/slice$i" 2>"$tmp/slice$i.err" &
done
rc=0
while :; do
	wait -n || { st=$?; ((st == 127)) && break; rc=$st; }
done
if ((rc != 0)); then
	cat "$tmp"/*.err >&2
	echo "Bail out! tests/vm/run --list failed"
	exit 1
fi

# pairs FILE FROM: its "SCENARIO TARGET" of that origin, sorted, repeats kept.
pairs() { awk -v from="$2" '$3 == from { print $1, $2 }' "$1" | sort; }

pairs "$tmp/full" all >"$tmp/full.pairs"
pairs "$tmp/matrix" matrix >"$tmp/matrix.pairs"
: >"$tmp/slices.pairs"
for ((i = 1; i <= n_slices; i++)); do
	pairs "$tmp/slice$i" slice >"$tmp/s$i.pairs"
	pairs "$tmp/slice$i" matrix >"$tmp/m$i.pairs"
	cat "$tmp/s$i.pairs" >>"$tmp/slices.pairs"
done
sort -o "$tmp/slices.pairs" "$tmp/slices.pairs"

# The checks, each run through ok:
# shellcheck disable=SC2317
no_repeats() { [[ -z $(uniq -d "$1") ]] || { uniq -d "$1" | sed 's/^/# twice: /'; return 1; }; }
# shellcheck disable=SC2317
disjoint() {
	local both
	both=$(comm -12 "$1" "$2")
	[[ -z $both ]] || { printf '# in both: %s\n' "$both"; return 1; }
}
# shellcheck disable=SC2317
same() { diff -u "$1" "$2" | sed 's/^/# /'; [[ ${PIPESTATUS[0]} -eq 0 ]]; }
# shellcheck disable=SC2317
nonempty() { [[ -s $1 ]]; }
# shellcheck disable=SC2317
listed_once() { nonempty "$1" && no_repeats "$1"; }
# every_scenario_in_matrix: each scenario has its line in the matrix (one
# missing runs on every target of every arch, in every CI run: it must be
# asked for).
# shellcheck disable=SC2317
every_scenario_in_matrix() {
	local dir f s missing=()
	dir=$(dirname "$run")/scenarios
	for f in "$dir"/*/test.sh; do
		s=${f%/test.sh} s=${s##*/}
		awk -v s="$s" '{ sub(/#.*/, "") } $1 == s { found = 1 } END { exit !found }' \
			"$dir/matrix" || missing+=("$s")
	done
	[[ ${#missing[@]} -eq 0 ]] || { printf '# not in the matrix: %s\n' "${missing[@]}"; return 1; }
}

ok "every scenario has its line in the matrix" every_scenario_in_matrix
ok "the full run lists pairs, each once" listed_once "$tmp/full.pairs"
ok "the matrix lists pairs, each once" listed_once "$tmp/matrix.pairs"
for ((i = 1; i <= n_slices; i++)); do
	ok "slice $i/$n_slices: the matrix's runs unchanged" same "$tmp/matrix.pairs" "$tmp/m$i.pairs"
	ok "slice $i/$n_slices: not empty" nonempty "$tmp/s$i.pairs"
	ok "slice $i/$n_slices: disjoint from the matrix" disjoint "$tmp/matrix.pairs" "$tmp/s$i.pairs"
done
ok "the $n_slices slices are disjoint" no_repeats "$tmp/slices.pairs"
sort -m "$tmp/matrix.pairs" "$tmp/slices.pairs" >"$tmp/union.pairs"
ok "the matrix and the $n_slices slices are the full run" same "$tmp/full.pairs" "$tmp/union.pairs"
done_testing
