# resolve is a question: it loads no module. The kernel honours
# CRYPTO_NOLOAD for the name looked up only: a name not registered for the
# caller's mask is built by cryptomgr, which loads the template's module
# ("crypto-xts") and its arguments' ("crypto-camellia"). So resolve of
# names whose template or cipher is a module not loaded must leave lsmod
# and /proc/crypto as they were and name the modules an answer would load;
# a name buildable from what is loaded is still built for the caller that
# needs it (and unregistered again); calibrate of such a name loads what
# it needs and says which modules it loaded.
#
# What a build asks modprobe for differs by kernel (6.7's lskcipher cbc,
# 7.2 without pcbc), and so do the modules Debian ships: in CI on 6.1 at
# every landing, 6.12 and 7.2 by rotation (each failed before the fix).

# The CPU's AES module too, as udev loads it at boot: 6.7's cbc looks "aes"
# up as an lskcipher first, which asks modprobe for crypto-aes even though
# aes is registered (a cipher), and resolve then counts aesni_intel in.
modprobe_q virtio_pci virtio_crypto crypto_user "$cpu_aes_module"
wait_for_driver virtio_crypto_aes_cbc 60 || true
wait_for_selftests virtio_crypto 120 || true
wait_for_selftests "$cpu_aes_module" 120 || true
check "insmod cryptoprio.ko" insmod "$CP_KMOD/cryptoprio.ko"

mods_now() { cut -d' ' -f1 /proc/modules | sort; }
# /proc/crypto but for the reference counts, which a lookup moves
crypto_now() { grep -v '^refcnt' /proc/crypto; }
registered() { awk -v n="$1" '$1 == "name" && $3 == n { f = 1 } END { exit !f }' /proc/crypto; }

# Names whose cipher no module loaded at boot registers: each template
# over one, and the modules the cipher's alias names (modules.alias).
names=() absent=()
for pair in 'cbc(camellia)' 'xts(serpent)' 'lrw(cast6)' 'pcbc(twofish)'; do
	leaf=${pair#*(}
	leaf=${leaf%)}
	# 7.2 has no pcbc: the kernel's build stops at the template
	if ! modprobe -nq "crypto-${pair%%(*}"; then
		absent+=("$pair")
		continue
	fi
	if registered "$leaf"; then
		log "$pair: $leaf is registered at boot, not asked"
		continue
	fi
	names+=("$pair")
done
log "names asked: ${names[*]}; templates this kernel lacks: ${absent[*]}"
log "modules loaded now: $(mods_now | tr '\n' ' ')"
[[ ${#names[@]} -gt 0 ]] || fail "every candidate cipher is registered: nothing to test"

for name in "${names[@]}"; do
	tag=$(tr -c 'a-z0-9\n' _ <<<"$name")
	leaf=${name#*(}
	leaf=${leaf%)}
	mods_now >"$CP_RESULTS/$tag.mods.before"
	crypto_now >"$CP_RESULTS/$tag.crypto.before"
	out=$CP_RESULTS/$tag.resolve.txt
	rc=0
	"$ctl" resolve --type skcipher "$name" >"$out" 2>&1 || rc=$?
	cat "$out"
	# the JSON of the first only: each command takes ~10 s on a loaded host
	[[ $name != "${names[0]}" ]] ||
		"$ctl" resolve --type skcipher --json "$name" >"$CP_RESULTS/$tag.resolve.json" 2>/dev/null || true
	mods_now >"$CP_RESULTS/$tag.mods.after"
	crypto_now >"$CP_RESULTS/$tag.crypto.after"
	check "resolve $name: exit status 0 ($rc)" test "$rc" -eq 0
	check "resolve $name: lsmod as before" \
		diff "$CP_RESULTS/$tag.mods.before" "$CP_RESULTS/$tag.mods.after"
	check "resolve $name: /proc/crypto as before" \
		diff "$CP_RESULTS/$tag.crypto.before" "$CP_RESULTS/$tag.crypto.after"
	check "resolve $name: says it would load ${leaf}_generic" \
		grep -q "would load.*${leaf}_generic" "$out"
	[[ $name != "${names[0]}" ]] ||
		check "resolve $name --json: would_load of every caller names ${leaf}_generic, no driver" \
			test "$(jget "$CP_RESULTS/$tag.resolve.json" \
				"all(c['driver'] is None and '${leaf}_generic' in c.get('would_load', []) for c in d['callers'])")" = True
done

# A template no module has: nothing to load, the build fails, no driver.
for name in "${absent[@]}"; do
	tag=$(tr -c 'a-z0-9\n' _ <<<"$name")
	mods_now >"$CP_RESULTS/$tag.mods.before"
	crypto_now >"$CP_RESULTS/$tag.crypto.before"
	check "resolve $name (no such template)" \
		sh -c "'$ctl' resolve --type skcipher --json '$name' >'$CP_RESULTS/$tag.resolve.json'"
	"$ctl" resolve --type skcipher "$name" || true
	mods_now >"$CP_RESULTS/$tag.mods.after"
	crypto_now >"$CP_RESULTS/$tag.crypto.after"
	check "resolve $name: lsmod as before" \
		diff "$CP_RESULTS/$tag.mods.before" "$CP_RESULTS/$tag.mods.after"
	check "resolve $name: /proc/crypto as before" \
		diff "$CP_RESULTS/$tag.crypto.before" "$CP_RESULTS/$tag.crypto.after"
	check "resolve $name: no driver, nothing it would load" \
		test "$(jget "$CP_RESULTS/$tag.resolve.json" \
			"all(c['driver'] is None and not c.get('would_load') for c in d['callers'])")" = True
done

# What needs no load is answered as before: cbc(aes) is registered for any
# caller (the engine); a synchronous caller, which the engine's async
# driver does not serve, gets what a build from registered parts gives
# (unless a synchronous cbc(aes) is registered already), which the module
# unregisters again.
mods_now >"$CP_RESULTS/aes.mods.before"
crypto_now >"$CP_RESULTS/aes.crypto.before"
res=$CP_RESULTS/cbc-aes.json
check "resolve cbc(aes)" sh -c "'$ctl' resolve --json 'cbc(aes)' >'$res'"
"$ctl" resolve 'cbc(aes)' || true
mods_now >"$CP_RESULTS/aes.mods.after"
crypto_now >"$CP_RESULTS/aes.crypto.after"
check "resolve cbc(aes): every caller got a driver, none would load anything" \
	test "$(jget "$res" "all(c['driver'] and not c.get('would_load') for c in d['callers'])")" = True
sync=$(jget "$res" "[c['driver'] for c in d['callers'] if c['caller']=='synchronous'][0]")
log "synchronous caller of cbc(aes): $sync$(has_driver "$sync" || echo ' (built for the lookup, gone again)')"
check "resolve cbc(aes): the synchronous caller does not get the engine" \
	test "$sync" != virtio_crypto_aes_cbc
check "resolve cbc(aes): lsmod as before" diff "$CP_RESULTS/aes.mods.before" "$CP_RESULTS/aes.mods.after"
check "resolve cbc(aes): /proc/crypto as before" \
	diff "$CP_RESULTS/aes.crypto.before" "$CP_RESULTS/aes.crypto.after"

# calibrate of an instance over a cipher not loaded: the kernel builds it,
# loading the cipher's module; calibrate says which.
name=${names[0]}
leaf=${name#*(}
leaf=${leaf%)}
drv="${name%%(*}(${leaf}-generic)"
mods_now >"$CP_RESULTS/calib.mods.before"
check "${leaf}_generic is not loaded before calibrate" not grep -qx "${leaf}_generic" "$CP_RESULTS/calib.mods.before"
out=$CP_RESULTS/calibrate.json
check "calibrate --raw $drv" \
	sh -c "'$ctl' calibrate --raw --json --size 4096 --budget 20 '$drv' >'$out'"
mods_now >"$CP_RESULTS/calib.mods.after"
loaded=$(comm -13 "$CP_RESULTS/calib.mods.before" "$CP_RESULTS/calib.mods.after" | tr '\n' ' ')
log "calibrate loaded: $loaded"
check "calibrate $drv loaded ${leaf}_generic" grep -qx "${leaf}_generic" "$CP_RESULTS/calib.mods.after"
check "calibrate --json: modules_loaded lists what /proc/modules gained ($loaded)" \
	test "$(jget "$out" "' '.join(sorted(d.get('modules_loaded', [])))")" = "$(echo $loaded)"
check "calibrate $drv: measured with a known answer" \
	test "$(jget "$out" "[r['known_answer'] for r in d['results']]")" = "['ok']"
# once more for the table, the module removed if nothing holds it now
if rmmod "${leaf}_generic" 2>/dev/null; then
	out=$CP_RESULTS/calibrate.txt
	check "calibrate --raw $drv again, human output" \
		sh -c "'$ctl' calibrate --raw --size 4096 --budget 20 '$drv' >'$out' 2>&1"
	cat "$out"
	check "calibrate: says it loaded ${leaf}_generic" grep -q "loaded.*${leaf}_generic" "$out"
else
	log "${leaf}_generic stays in use after calibrate: $(module_users "${leaf}_generic" | tr '\n' ' ')"
fi
