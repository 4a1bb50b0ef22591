#!/bin/bash
# What a script relies on, run on the host (no crypto_user, no module
# needed): the exit codes of cryptoprioctl(8)'s EXIT STATUS, and every
# document --json prints, a verb's or an error's, valid against the schema.
# usage: exit-json.sh CRYPTOPRIOCTL SCHEMA CHECK-JSON-SCHEMA CONF_DIR
set -u
ctl=$1 schema=$2 validate=$3 confdir=$4
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Without CAP_NET_ADMIN, whoever runs the test.
unpriv=(setpriv --bounding-set=-net_admin --inh-caps=-net_admin --)
if [[ $(id -u) -eq 0 ]] && "${unpriv[@]}" true; then
	:
else
	unpriv=()
fi
# run NAME CMD...: stdout in $tmp/NAME.json, stderr in $tmp/NAME.err, exit code in $rc
run() {
	local name=$1
	shift
	"$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
	rc=$?
}
not_valid() { ! "$validate" "$schema" "$tmp/$1.json" >/dev/null; }
valid() { "$validate" "$schema" "$tmp/$1.json" >"$tmp/$1.check" || { cat "$tmp/$1.check"; false; }; }
jq_() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/$1.json" "$2"; }
says() { grep -qE "$2" "$tmp/$1.err" || { echo "# $1: $(cat "$tmp/$1.err")"; false; }; }

printf '[Policy]\nCalibrate = never\n[Driver *]\nExclude = yes\n' >"$tmp/keep.conf"
printf '[Policy]\nCalibrate = never\n[Driver *]\nPriority = 7\n' >"$tmp/change.conf"
printf '[Policy]\nGears = sideways\n' >"$tmp/bad.conf"

run plan-keep "$ctl" -c "$tmp/keep.conf" plan --exit-code
ok "plan --exit-code: 0 when nothing would change" test "$rc" -eq 0
run plan-change "$ctl" -c "$tmp/change.conf" plan --exit-code
ok "plan --exit-code: 3 when changes are pending" test "$rc" -eq 3
run plan-change-plain "$ctl" -c "$tmp/change.conf" plan
ok "plan without --exit-code: 0 all the same" test "$rc" -eq 0
run plan "$ctl" -c "$tmp/change.conf" plan --exit-code --json --all
ok "plan --json --exit-code: 3, a document" test "$rc" -eq 3
ok "plan --json: valid" valid plan
ok "plan --json: version 1, verb plan" test "$(jq_ plan 'd["version"], d["verb"]')" = "(1, 'plan')"
run plan-bad "$ctl" -c "$tmp/bad.conf" plan --json
ok "plan of an invalid policy: 1, an error document" test "$rc" -eq 1
ok "plan of an invalid policy: valid" valid plan-bad
ok "the error document has the message" test "$(jq_ plan-bad 'd["error"]["exit_status"]')" = 1

run list "$ctl" list --json
ok "list --json: 0" test "$rc" -eq 0
ok "list --json: valid" valid list
run check-policy "$ctl" check-policy --json "$confdir"/*.conf
ok "check-policy --json of the shipped policies: valid" valid check-policy
ok "check-policy --json: no line 0 (null where there is none)" \
	test "$(jq_ check-policy '[s["set_by"]["line"] for r in d["results"] for s in r["policy"] if not s["set_by"]["file"]][:1]')" = "[None]"
run check-policy-bad "$ctl" check-policy --json "$tmp/bad.conf"
ok "check-policy --json of an invalid policy: 1" test "$rc" -eq 1
ok "check-policy --json of an invalid policy: valid" valid check-policy-bad
run status "$ctl" status --json
ok "status --json: valid" valid status
ok "status --json: a verdict" test "$(jq_ status 'd["verdict"] in ("as-planned", "failed", "drifted")')" = True

run export "$ctl" export --json=short
ok "export: 0" test "$rc" -eq 0
ok "export: valid" valid export
run export-bad "$ctl" -c "$tmp/keep.conf" plan --json --from "$tmp/plan.json"
ok "plan --from a document of another verb: 1" test "$rc" -eq 1
ok "plan --from a document of another verb: an error document, valid" valid export-bad
run metrics "$ctl" metrics --json
ok "metrics --json: 2 (text only)" test "$rc" -eq 2
ok "metrics --json: an error document, valid" valid metrics

run calibrate "${unpriv[@]}" "$ctl" calibrate --json
ok "calibrate without CAP_NET_ADMIN: 1" test "$rc" -eq 1
ok "calibrate without CAP_NET_ADMIN: says so" says calibrate "needs CAP_NET_ADMIN"
ok "calibrate without CAP_NET_ADMIN: an error document, valid" valid calibrate
ok "calibrate's error document: verb calibrate, the message" \
	test "$(jq_ calibrate '"CAP_NET_ADMIN" in d["error"]["message"] and d["verb"]')" = calibrate
run calibrate-raw "${unpriv[@]}" "$ctl" calibrate --raw --json
ok "calibrate --raw without CAP_NET_ADMIN: 1, an error document" test "$rc" -eq 1
ok "calibrate --raw's error document: valid" valid calibrate-raw
run apply-dry "${unpriv[@]}" "$ctl" -c "$tmp/keep.conf" apply --dry-run --json
ok "apply --dry-run without CAP_NET_ADMIN: 1, as apply" test "$rc" -eq 1
ok "apply --dry-run without CAP_NET_ADMIN: says so" says apply-dry "needs CAP_NET_ADMIN"
ok "apply --dry-run's error document: valid" valid apply-dry
if [[ $(id -u) -eq 0 && $(jq_ list 'd["inventory_source"]') != crypto_user ]]; then
	run apply-dry-root "$ctl" -c "$tmp/keep.conf" apply --dry-run
	ok "apply --dry-run without crypto_user: 1, as apply" test "$rc" -eq 1
	ok "apply --dry-run without crypto_user: says so" says apply-dry-root "priorities cannot be changed: .*crypto_user"
fi
for verb in "set aes-generic 7" "reset" "resolve cbc(aes)"; do
	name=${verb%% *}
	run "$name" "${unpriv[@]}" "$ctl" $verb --json
	ok "$name --json without CAP_NET_ADMIN: 1" test "$rc" -eq 1
	ok "$name --json: an error document, valid" valid "$name"
done
run set-wait "${unpriv[@]}" "$ctl" set --wait=1s aes-generic 7
ok "set --wait=1s: taken (1: no CAP_NET_ADMIN)" test "$rc" -eq 1
run wait-bad "$ctl" apply --wait=soon --json
ok "apply --wait=soon: 2" test "$rc" -eq 2
ok "apply --wait=soon: an error document, valid" valid wait-bad
ok "with exit_status 2" test "$(jq_ wait-bad 'd["error"]["exit_status"]')" = 2
run wait-long "$ctl" apply --dry-run --wait 5min
ok "apply --wait 5min: taken (beyond a policy's 60 s)" test "$rc" -ne 2
run wait-too-long "$ctl" apply --dry-run --wait 2d
ok "apply --wait 2d: 2 (at most a day)" test "$rc" -eq 2
run cached-force "$ctl" apply --cached-only --force --json
ok "apply --cached-only --force: 2" test "$rc" -eq 2
ok "and an error document saying why" \
	test "$(jq_ cached-force '"measures nothing" in d["error"]["message"]')" = True
run plan-cached "$ctl" plan --cached-only
ok "plan --cached-only: 2 (apply's)" test "$rc" -eq 2
run reset-wait-bad "$ctl" reset --wait soon
ok "reset --wait soon: 2" test "$rc" -eq 2
run option-bad "$ctl" list --bogus --json
ok "an unknown option with --json: 2 and a valid error document" valid option-bad
run verb-bad "$ctl" --json frobnicate
ok "an unknown verb with --json: 2" test "$rc" -eq 2
ok "and a valid error document, verb null, naming it" \
	test "$(jq_ verb-bad 'd["verb"] is None and "frobnicate" in d["error"]["message"]')" = True
run verb-none "$ctl" --json
ok "no verb with --json: 2 and a valid error document" valid verb-none

for f in "$tmp"/*.json; do
	[[ -s $f ]] || continue
	sed -i 's/"version": 1/"version": 2/' "$f"
	break
done
ok "the schema refuses another version" not_valid "$(basename "${f%.json}")"
done_testing
