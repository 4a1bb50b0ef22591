#!/bin/bash
# The policy files shipped in conf/ (the default and the examples the man
# page quotes) are valid: check-policy takes each one without an error.
# usage: conf-examples.sh CRYPTOPRIOCTL CONF_DIR
set -u
ctl=$1 dir=$2
n=0 failed=0
for f in "$dir"/*.conf; do
	n=$((n + 1))
	if out=$("$ctl" check-policy "$f" 2>&1); then
		echo "ok $n - $(basename "$f")"
	else
		echo "not ok $n - $(basename "$f")"
		printf '# %s\n' "$out"
		failed=1
	fi
done
echo "1..$n"
[[ $n -gt 0 ]] && exit $failed
