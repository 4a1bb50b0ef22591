#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM scenarios' helpers are defined once: a function that two scenarios
# need is lib.sh's, and a name means one thing across the suite. Fails when
# a function name is defined in two of the scenarios' shell files (their
# test.sh, setup.sh and the files they source; tests/vm/tools' too), in a
# scenario's and in lib.sh, or twice in lib.sh. Reads the files only.
#
# usage: check-helpers.sh TESTS_VM_DIR
set -euo pipefail
dir=$1
# shellcheck source-path=SCRIPTDIR source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# "NAME FILE:LINE" for each function a file defines: a line "NAME() {" or
# "NAME() (" (or "NAME()" with the brace on the next line), the form the
# suite writes; awk's "function NAME(...)" in an awk program is not one.
# Here-documents (Python, policies, shell for another machine) are
# skipped; one never closed is an error, lest it hide the rest of a file.
# shellcheck disable=SC2016
defs_awk='
function unclosed() { printf "%s: here-document <<%s never closed\n", prev, tag > "/dev/stderr"; bad = 1 }
FNR == 1 { if (tag != "") unclosed(); tag = ""; pend = ""; prev = FILENAME }
tag != "" {
	line = $0
	if (strip) sub(/^\t+/, "", line)
	# the tag alone, or followed by the quote that closes a string (sh -c)
	if (line == tag || index(line, tag "\047") == 1 || index(line, tag "\"") == 1) tag = ""
	next
}
{
	if (pend != "") {
		if ($0 ~ /^[ \t]*[{(]/) print pend
		pend = ""
	}
	if (match($0, /^[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\(\)/)) {
		name = substr($0, 1, RLENGTH)
		rest = substr($0, RLENGTH + 1)
		sub(/^[ \t]*/, "", name)
		sub(/[ \t]*\(\)$/, "", name)
		if (rest ~ /^[ \t]*[{(]/) print name, FILENAME ":" FNR
		else if (rest ~ /^[ \t]*(#.*)?$/) pend = name " " FILENAME ":" FNR
	}
	# a here-document starts (not a here-string <<<): the first on the line
	if (match($0, /<<-?[ \t]*["\047]?[A-Za-z_][A-Za-z0-9_]*["\047]?/) &&
	    substr($0, RSTART + 2, 1) != "<" && (RSTART == 1 || substr($0, RSTART - 1, 1) != "<")) {
		h = substr($0, RSTART, RLENGTH)
		strip = (h ~ /^<<-/)
		sub(/^<<-?[ \t]*["\047]?/, "", h)
		sub(/["\047]$/, "", h)
		tag = h
	}
}
END { if (tag != "") unclosed(); exit bad }'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
scen=("$dir"/scenarios/*/*.sh "$dir"/tools/*/*.sh)
if [[ ! -f $dir/lib.sh || ${#scen[@]} -eq 0 ]]; then
	echo "Bail out! no lib.sh or no scenario under $dir"
	exit 1
fi
if ! awk "$defs_awk" "$dir/lib.sh" >"$tmp/lib" || ! awk "$defs_awk" "${scen[@]}" >"$tmp/scen"; then
	echo "Bail out! the definitions could not be read"
	exit 1
fi
# Paths from tests/vm, for the messages.
sed -i "s| $dir/| |" "$tmp/lib" "$tmp/scen"

# names FILE: each name FILE lists, once, sorted.
# shellcheck disable=SC2317
names() { awk '{ print $1 }' "$1" | sort -u; }
# where NAME... < DEFS: each NAME's definitions, as "# NAME FILE:LINE".
# shellcheck disable=SC2317
where() { awk 'NR == FNR { want[$1] = 1; next } $1 in want { print "# " $0 }' <(printf '%s\n' "$@") - | sort -s -k2,2; }

# shellcheck disable=SC2317
once() {
	local dup
	mapfile -t dup < <(awk '{ print $1 }' "$1" | sort | uniq -d)
	((${#dup[@]} == 0)) || { where "${dup[@]}" <"$1"; return 1; }
}
# shellcheck disable=SC2317
apart() {
	local both
	mapfile -t both < <(comm -12 <(names "$1") <(names "$2"))
	((${#both[@]} == 0)) || { cat "$1" "$2" | where "${both[@]}"; return 1; }
}
# shellcheck disable=SC2317
some() { [[ -s $1 ]]; }

ok "lib.sh's functions were found" some "$tmp/lib"
ok "the scenarios' functions were found" some "$tmp/scen"
ok "lib.sh defines each function once" once "$tmp/lib"
ok "the scenarios define each name once (a shared helper is lib.sh's)" once "$tmp/scen"
ok "no scenario defines a name lib.sh defines" apart "$tmp/lib" "$tmp/scen"
done_testing
