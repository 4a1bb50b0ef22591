#!/bin/bash
# cryptoprioctl's --help tells the truth: every verb it lists answers
# "VERB --help" with its usage (exit 0, nothing run), and each verb's
# options are the ones cryptoprioctl(8)'s SYNOPSIS gives it.
# usage: help.sh CRYPTOPRIOCTL MANPAGE_SCD
set -u
ctl=$1 man=$2
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# options VERB: the --options of VERB's forms in TEXT on stdin, sorted
options() { grep -oE -- '--[a-z-]+' | sort -u | tr '\n' ' '; }

verbs=$("$ctl" --help | sed -n '/^Verbs:/,/^$/{/^  [a-z]/s/^  \([a-z-]*\).*/\1/p}' | sort -u)
ok "--help lists verbs" test -n "$verbs"
for verb in $verbs; do
	out=$("$ctl" "$verb" --help)
	ok "$verb --help exits 0" test $? -eq 0
	ok "$verb --help shows its usage" grep -q "^  cryptoprioctl \[OPTIONS\] $verb" <<<"$out"
	in_help=$(options <<<"$out")
	in_man=$(grep -E "^\*cryptoprioctl\* \[_OPTIONS_\] \*$verb[* ]" "$man" | sed 's/\*//g' | options)
	ok "$verb: the options of --help ($in_help) are the man page's ($in_man)" \
		test "$in_help" = "$in_man"
done
out=$("$ctl" set -h)
ok "-h after a verb is --help" grep -q "cryptoprioctl \[OPTIONS\] set \[--wait TIME\] DRIVER" <<<"$out"
done_testing
