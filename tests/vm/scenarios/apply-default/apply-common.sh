# shellcheck shell=bash
# Shared by the apply-* and plan-* scenarios: modules, the cryptoprio module
# when it was built for this kernel, IPsec SAs and what they are built on.
engine_ready xfrm_user esp4
# What an SA is built from, loaded up front: autoloading these while the SA
# is created races under TCG (see set-reset).
modprobe_q authenc echainiv
modprobe -q crypto-hmac || true
modprobe -q crypto-sha256 || true

# load_cpmod: insmod cryptoprio.ko if it was built for this kernel; prints
# the calibration backend apply will use ("module" or "af_alg").
load_cpmod() {
	if [[ -f ${CP_KMOD:-}/cryptoprio.ko ]] && insmod "$CP_KMOD/cryptoprio.ko" 2>/dev/null; then
		echo module
	else
		echo af_alg
	fi
}

# authenc_refs DRIVER: users (refcnt) of the authenc instances built on DRIVER
authenc_refs() {
	awk -v drv="$1" '
		function val(l) { sub(/^[^:]*:[ \t]*/, "", l); return l }
		BEGIN { gsub(/[.()]/, "\\\\&", drv); re = "^authenc[(](hmac[(][^)]*[)]|[^(),]+)," drv "[)]$" }
		$1 == "driver" { on = (val($0) ~ re) }
		on && $1 == "refcnt" { n += val($0) }
		END { print n + 0 }' /proc/crypto
}

# sa_built_on DRIVER SPI: a new SA (SPI) takes a reference on an authenc
# instance built on DRIVER (a new instance or one an earlier SA made).
sa_built_on() {
	local before after
	before=$(authenc_refs "$1")
	add_sa "$2" || return 1
	after=$(authenc_refs "$1")
	printf 'users of authenc instances on %s: %s -> %s\n' "$1" "$before" "$after"
	[[ $after -gt $before ]]
}

# jget FILE EXPR: EXPR in python with d = the JSON document in FILE.

