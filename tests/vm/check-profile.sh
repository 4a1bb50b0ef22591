#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/vm/profile on a run's leftovers made up here: a log with
# cp-vm-init's lines and three checks, its results with a calibrate and an
# apply document, and logs of scenarios that never ended (arm64, armhf).
#
# usage: check-profile.sh TESTS_VM_PROFILE
set -euo pipefail
profile=$1
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/vm-logs" "$tmp/vm-results/7.2-one/json"
cat >"$tmp/vm-logs/7.2-one.log" <<'LOG'
[    1.000000] Linux version 7.2
cp-vm-init: boot done after 8.50 s; running scenario one
cp-vm-init: scenario one exited with 0 at 108.50 s
===== scenario output (one) =====
PASS: modules loaded  [12.0 s]
FAIL: apply exits 0 (exit 1)  [52.0 s]
PASS: the state file is written  [60.0 s]
LOG
echo '{"version": 1, "verb": "calibrate", "elapsed_ns": 20000000000}' \
	>"$tmp/vm-results/7.2-one/json/calibrate.100.json"
echo '{"version": 1, "verb": "apply", "calibration": {"elapsed_ns": 5000000000}}' \
	>"$tmp/vm-results/7.2-one/json/apply.101.json"
printf 'cp-vm-init: boot done after 4.0 s; running scenario two\nPASS: x  [3.0 s]\n' \
	>"$tmp/vm-logs/arm64-6.1-two.log"
printf 'cp-vm-init: boot done after 9.0 s; running scenario three\nPASS: y  [5.0 s]\n' \
	>"$tmp/vm-logs/armhf-7.2-three.log"

"$profile" -B "$tmp" >"$tmp/out"
cat "$tmp/out" | sed 's/^/# /'
row() { grep "^$1 " "$tmp/out" | tr -s ' '; }
ok "a finished scenario: total, boot, setup, calibrations, rest, longest step" \
	test "$(row one)" = 'one 7.2 108 8 12 25 63 40 s to "apply exits 0 (exit 1)"'
ok "one that never ended: its boot and setup, no total" \
	test "$(row two)" = 'two arm64:6.1 - 4 3 - - 3 s to "x"'
ok "an armhf run: its target" test "$(row three)" = 'three armhf:7.2 - 9 5 - - 5 s to "y"'
ok "the longest first" test "$(sed -n 2p "$tmp/out" | cut -d' ' -f1)" = one
"$profile" -B "$tmp" two >"$tmp/named"
ok "scenarios named: only those" test "$(wc -l <"$tmp/named")" = 2
ok "no logs: an error" bash -c '! "$1" -B "$2/none" 2>/dev/null' _ "$profile" "$tmp"
done_testing
