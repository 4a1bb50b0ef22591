#!/bin/bash
# cryptoprioctl export and plan --from, on the host: another machine's
# export (a fixture: two cbc(aes) of a 7.2 guest with their figures) planned
# with this machine's policy, its figures keyed by its own kernel and
# modules; a bad or mismatched file refused with what is wrong in it; this
# machine's export planned as this machine is.
# usage: plan-from.sh CRYPTOPRIOCTL SCHEMA CHECK-JSON-SCHEMA FIXTURES_DIR
set -u
ctl=$1 schema=$2 validate=$3 fixtures=$4
fixture=$fixtures/export-two-cbc.json
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# edit NAME PYTHON: the fixture changed by PYTHON (over d) into $tmp/NAME.json
edit() {
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
		"$fixture" "$2" "$tmp/$1.json"
}
# refused NAME ERE: plan --from $tmp/NAME.json exits 1 with one line matching ERE
refused() {
	local err
	err=$("$ctl" -c "$tmp/any.conf" plan --from "$tmp/$1.json" 2>&1 >/dev/null)
	local rc=$?
	[[ $rc -eq 1 && $err =~ $2 && $(wc -l <<<"$err") -eq 1 ]] || { echo "# $1: exit $rc: $err"; false; }
}
# exits CODE CMD...: CMD exits with CODE
exits() {
	local want=$1
	shift
	"$@" >/dev/null 2>&1
	[[ $? -eq $want ]]
}
valid() { "$validate" "$schema" "$tmp/$1.json" >"$tmp/$1.check" || { sed 's/^/# /' "$tmp/$1.check"; false; }; }
printf '[Policy]\nGears = any\n' >"$tmp/any.conf"

out=$("$ctl" -c "$tmp/any.conf" plan --from "$fixture" --no-legend)
ok "plan --from: the export's figures rank its implementations" \
	grep -qE '^cbc\(aes\) +cbc-aes-aesni +cpu +400 -> 149 +set' <<<"$out"
ok "plan --from: exit 3 with --exit-code and steps" \
	exits 3 "$ctl" -c "$tmp/any.conf" plan --from "$fixture" --exit-code
"$ctl" -c "$tmp/any.conf" plan --from "$fixture" >"$tmp/summary.txt"
ok "plan --from: the figures said to come from the file" \
	grep -q "the figures of $fixture: 2 points, 0 not in it" "$tmp/summary.txt"
edit slow 'd["calibration"]["machines"][0]["entries"][1]["mbps"] = [3, 300, 290, 310, 5]'
ok "plan --from: slower offload figures, nothing to change" \
	exits 0 "$ctl" -c "$tmp/any.conf" plan --from "$tmp/slow.json" --exit-code
ok "plan --from: one algorithm in the planned order, said in the singular" grep -qx \
	'Nothing to change: 1 algorithm already in the planned order.' \
	<("$ctl" -c "$tmp/any.conf" plan --from "$tmp/slow.json")
edit rebuilt 'd["kernel"]["modules"][2]["srcversion"] = "0000"'
"$ctl" -c "$tmp/any.conf" plan --from "$tmp/rebuilt.json" >"$tmp/rebuilt.txt"
ok "plan --from: a module of another build has no figures (keyed as on that machine)" \
	grep -q "1 point, 1 not in it" "$tmp/rebuilt.txt"
edit reverified 'd["kernel"]["modules"][3]["srcversion"] = "0000"'
ok "plan --from: an engine verified by another build of the module is not above the CPU" \
	exits 0 "$ctl" -c "$tmp/any.conf" plan --from "$tmp/reverified.json" --exit-code
"$ctl" -c "$tmp/any.conf" plan --from "$tmp/reverified.json" --json >"$tmp/reverified-plan.json"
ok "plan --from --json: its place says why" python3 -c '
import json, sys
a = [a for a in json.load(open(sys.argv[1]))["algorithms"] if a["name"] == "cbc(aes)"][0]
p = a["places"]
assert [x["driver"] for x in p] == ["cbc-aes-aesni", "virtio_crypto_aes_cbc"], p
assert p[1]["reason"] == "unverified" and "not verified: after the CPU" in p[1]["why"], p[1]
' "$tmp/reverified-plan.json"
ok "plan --from: the default policy keeps the CPU first" \
	exits 0 "$ctl" -c /dev/null plan --from "$fixture" --exit-code

"$ctl" -c "$tmp/any.conf" plan --from "$fixture" --json >"$tmp/plan.json"
ok "plan --from --json: valid" valid plan
ok "plan --from --json: the inventory is a file's, the step planned" \
	test "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["inventory_source"], [s["driver"] for s in d["steps"]])' "$tmp/plan.json")" = "file ['cbc-aes-aesni']"

# An engine's gcm(aes) where the CPU has its ctr(aes) and no ghash: on a
# kernel whose gcm takes GHASH from its library (ghash_library) the plan
# creates gcm_base(CTR,ghash-lib); where it is not said, it cannot.
edit gcm 'i = d["implementations"]
i.append(dict(i[0], name="ctr(aes)", driver="ctr-aes-aesni"))
i.append(dict(i[1], name="gcm(aes)", driver="gcm-aes-cp-caam", type="aead", priority=3000, module="cp_caam_engine"))
d["kernel"]["ghash_library"] = True'
ok "plan --from a library GHASH's kernel: the CPU's gcm(aes) created" grep -qE \
	'^gcm\(aes\) +gcm_base\(ctr-aes-aesni,ghash-lib\) +cpu +.* create' \
	<("$ctl" -c /dev/null plan --from "$tmp/gcm.json" --no-legend)
edit gcm-unsaid 'i = d["implementations"]
i.append(dict(i[0], name="ctr(aes)", driver="ctr-aes-aesni"))
i.append(dict(i[1], name="gcm(aes)", driver="gcm-aes-cp-caam", type="aead", priority=3000, module="cp_caam_engine"))'
ok "plan --from an export that does not say it: no ghash, nothing created" \
	exits 0 "$ctl" -c /dev/null plan --from "$tmp/gcm-unsaid.json" --exit-code
edit gcm-bad 'd["kernel"]["ghash_library"] = "yes"'
ok "ghash_library not a boolean: refused" refused gcm-bad 'kernel: "ghash_library": not true or false'

edit verb 'd["verb"] = "plan"'
ok "a document of another verb: refused" refused verb "verb.json: a document of 'plan', not of 'export'"
edit version 'd["version"] = 2'
ok "an export of another version: refused" refused version "version.json: export of version 2, this cryptoprioctl reads version 1"
edit mismatch 'd["calibration"]["machines"][0]["kernel"] = "6.1.0-30-amd64"'
ok "figures of another kernel than the exported one: refused" \
	refused mismatch "mismatch.json: \"calibration\": figures of kernel 6.1.0-30-amd64 .*, not of the exported kernel 7.2.0-test-amd64"
edit twice 'd["implementations"].append(dict(d["implementations"][0]))'
ok "a driver listed twice: refused" refused twice "implementations\[3\]: driver 'cbc-aes-aesni' listed twice"
edit flag 'd["implementations"][1]["flags"].append("fast")'
ok "an unknown flag: refused" refused flag "implementations\[1\]: \"flags\": unknown flag 'fast'"
edit noprio 'del d["implementations"][2]["priority"]'
ok "a member missing: refused" refused noprio "implementations\[2\]: \"priority\": missing"
edit nocal 'd["calibration"] = {"version": 1}'
ok "a calibration that is no cache: refused" refused nocal "\"calibration\": not a calibration cache of version 2"
printf 'name : aes\n' >"$tmp/text.json"
ok "not JSON: refused" refused text "text.json: not a JSON document of cryptoprioctl"
ok "a file that is not there: refused" refused absent "cannot read .*absent.json: No such file"
ok "plan --from --force: a usage error" exits 2 "$ctl" plan --from "$fixture" --force
ok "apply --from: a usage error" exits 2 "$ctl" apply --from "$fixture"

# Exported in tests/vm's 7.2 guest by apply-gears-any, with the policy it
# planned there and the steps plan printed there: the same steps here.
# (its policy copied with mode 0644: in a tree unpacked by root from a git
# archive it is 0664, which the loader refuses)
vm=$fixtures/export-7.2-gears-any
install -m 0644 "$vm.conf" "$tmp/vm.conf"
"$ctl" -c "$tmp/vm.conf" plan --from "$vm.json" --no-legend >"$tmp/vm.plan"
ok "plan --from the 7.2 guest's export: the steps plan printed in the guest" diff "$vm.plan" "$tmp/vm.plan"
ok "the guest's steps are some" test -s "$vm.plan"
cp "$vm.json" "$tmp/vm.json"
ok "the guest's export: valid" valid vm

# This machine (/proc/crypto where there is no crypto_user): its export, planned from here.
"$ctl" export >"$tmp/export.json"
ok "export: exit 0" test $? -eq 0
ok "export: valid" valid export
printf '[Policy]\nCalibrate = never\n[Driver *]\nPriority = 7\n' >"$tmp/change.conf"
"$ctl" -c "$tmp/change.conf" plan >"$tmp/here.txt"
"$ctl" -c "$tmp/change.conf" plan --from "$tmp/export.json" >"$tmp/there.txt"
ok "plan --from this machine's export: the plan of this machine" diff "$tmp/here.txt" "$tmp/there.txt"
ok "export: unexpected argument refused" exits 2 "$ctl" export foo
done_testing
