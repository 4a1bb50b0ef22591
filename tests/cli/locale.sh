#!/bin/bash
# cryptoprioctl under the locale of its environment: LC_CTYPE taken (a
# UTF-8 path of the policy shown as it is in a table, not escaped by
# libsmartcols), LC_NUMERIC not (the decimal point of the figures and of
# JSON stays "."). The "±" of calibrate's cells against "+-" under LANG=C
# needs a kernel to measure: the VM scenario status-drift checks it.
# usage: locale.sh CRYPTOPRIOCTL FIXTURES_DIR
set -u
ctl=$1 fixtures=$2
export_file=$fixtures/export-two-cbc.json
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LANG LANGUAGE "${!LC_@}"

# A policy in a directory with a non-ASCII name: Pin= shows its file in WHY.
dir="$tmp/politique-é"
mkdir "$dir"
printf '[Policy]\nGears = any\n\n[Driver cbc-aes-aesni]\nPin = first\n' >"$dir/p.conf"
# plan_in VAR=VALUE...: the plan of the export in that environment (--json=short with json=1)
plan_in() { env "$@" "$ctl" -c "$dir/p.conf" plan --all --from "$export_file" ${json:+--json=short}; }

out=$(plan_in LC_ALL=C.UTF-8)
ok "LC_ALL=C.UTF-8: the policy's path in its table cell as it is" \
	grep -qF "Pin=first ($dir/p.conf:5)" <<<"$out"
out=$(plan_in LANG=C.UTF-8)
ok "LANG=C.UTF-8: the same" grep -qF "Pin=first ($dir/p.conf:5)" <<<"$out"
out=$(plan_in LC_ALL=C)
ok "LC_ALL=C: the same bytes escaped, ASCII only" \
	grep -qF 'Pin=first ('"$tmp"'/politique-\xc3\xa9/p.conf:5)' <<<"$out"

# A locale whose decimal point is a comma, built here (locales' sources).
mkdir -p "$tmp/loc"
if localedef -i de_DE -f UTF-8 "$tmp/loc/de_DE.UTF-8" >/dev/null 2>&1 ||
	[[ -f $tmp/loc/de_DE.UTF-8/LC_NUMERIC ]]; then
	de=(LOCPATH="$tmp/loc" LC_ALL=de_DE.UTF-8)
	out=$(plan_in "${de[@]}")
	ok "de_DE.UTF-8: its character set taken" grep -qF "Pin=first ($dir/p.conf:5)" <<<"$out"
	ok "de_DE.UTF-8: figures with a decimal point, not its comma" \
		grep -qE 'throughput 900\.00 MB/s at 4 KiB' <<<"$out"
	# (but for the time the plan took)
	json=1 plan_in LC_ALL=C | sed 's/"elapsed_ns":[0-9]*//' >"$tmp/c.json"
	json=1 plan_in "${de[@]}" | sed 's/"elapsed_ns":[0-9]*//' >"$tmp/de.json"
	ok "de_DE.UTF-8: the same JSON document as under C" cmp -s "$tmp/c.json" "$tmp/de.json"
else
	for what in "its character set" "decimal point" "JSON"; do
		n=$((n + 1))
		echo "ok $n - de_DE.UTF-8: $what # SKIP cannot build de_DE.UTF-8 (localedef, locales)"
	done
fi
done_testing
