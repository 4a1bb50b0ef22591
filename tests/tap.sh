# SPDX-License-Identifier: LGPL-2.1-or-later
# TAP for the shell checks of tests/ (sourced): ok NAME CMD... runs
# CMD and reports it as test NAME; done_testing prints the plan and exits 1
# if any failed.
n=0 failed=0

ok() {
	n=$((n + 1))
	if "${@:2}"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		failed=1
	fi
}

done_testing() {
	echo "1..$n"
	exit $failed
}
