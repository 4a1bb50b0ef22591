#!/bin/bash
# The policy files shipped in conf/ (the default and the examples the man
# page quotes) are valid: check-policy takes each one without an error.
# usage: conf-examples.sh CRYPTOPRIOCTL CONF_DIR
# Each checked as a copy of mode 0644: the loader refuses files others can
# write, and a tree unpacked by root from a git archive has them 0664.
set -u
ctl=$1 dir=$2
n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*.conf; do
	n=$((n + 1))
	install -m 0644 "$f" "$tmp/${f##*/}"
	if out=$("$ctl" check-policy "$tmp/${f##*/}" 2>&1); then
		echo "ok $n - $(basename "$f")"
	else
		echo "not ok $n - $(basename "$f")"
		printf '# %s\n' "$out"
		failed=1
	fi
done
echo "1..$n"
[[ $n -gt 0 ]] && exit $failed
