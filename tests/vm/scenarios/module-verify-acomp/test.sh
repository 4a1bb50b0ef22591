# Differential verification of compressors (cryptoprioctl verify, the
# module's VERIFY): the test engine's deflate round-trips with the
# kernel's under several seeds, both ways, texts of every kind, output
# spaces tight and not; so does its stored-block compressor (a ratio of
# 1:1 is no fault). Faults of one shape (mode len64, big) keep
# calibrate's known answer ok and are found, a case its seed reproduces;
# an engine that writes past a space too short (mode overrun) only by a
# tight case's canary; crosstalk only by the cases together; a request
# that never answers is kept until it does. Ciphers:
# module-verify; hashes: module-verify-hash.
p=/sys/module/cp_test_engine/parameters
r=$CP_RESULTS
drv=cp_test_engine_deflate
load_test_engine $drv
base=$(dmesg | wc -l)

for seed in 1 2 3; do
	verify_json "$r/ok-$seed.json" $drv --seed "$seed"
	log "seed $seed: $(impl_field "$r/ok-$seed.json" "i['verdict'], i['reference'], i.get('failure')" $drv)"
	check "mode ok, seed $seed: passed 48 cases against the kernel's deflate, exit 0" \
		test "$rc $(impl_field "$r/ok-$seed.json" "i['verdict'], i['cases'], i['reference'] not in (None, '$drv')" $drv)" = \
		"0 ('passed', 48, True)"
done

# What the cases are: mode wrong fails case 0 of seeds 1, 2 and 4, a
# compression with room (seed 3's is tight: failing there is allowed), in
# words; from its second request on (wrong_after 2), seed 5's case 1, a
# decompression with room for the text, whose output is not the text. A
# seed names the same cases on every kernel and arch.
echo wrong >"$p/mode"
for seed in 1 2 4; do
	"$ctl" verify --json $drv --seed "$seed" --cases 1 >"$r/case0-$seed.json" || true
done
echo ok >"$p/mode"
cases=$(for f in "$r"/case0-*.json; do impl_field "$f" "i['failure']" $drv; done)
printf '%s\n' "$cases"
check "mode wrong: case 0 of each seed fails, a compression in words" \
	test "$(printf '%s\n' "$cases" | grep -Ec '^case 0 of seed [0-9]+: compress [0-9]+ bytes, (noise|sparse data|a repeated period|mixed data), space [0-9]+, src one entry at offset [0-9]+, dst one entry at offset [0-9]+: the reference')" = 3
echo 2 >"$p/wrong_after"
verify_json "$r/decompress.json" $drv --seed 5
echo 0 >"$p/wrong_after"
echo ok >"$p/mode"
failure=$(impl_field "$r/decompress.json" "i.get('failure')" $drv)
log "wrong_after 2: $failure"
check "wrong_after 2: case 1 of seed 5, a decompression, gives other text (exit 4)" \
	test "$rc $(printf '%s\n' "$failure" | grep -Ec '^case 1 of seed 5: decompress [0-9]+ bytes, .*, [0-9]+ compressed, space [0-9]+, .*: its output differs from the text from byte 0$')" = "4 1"

# A compressor with another ratio is no fault: stored blocks (a 64 KiB
# text takes more than the kernel's deflate, so tight spaces fail).
echo Y >"$p/deflate_store"
verify_json "$r/store.json" $drv --seed 6
echo N >"$p/deflate_store"
log "deflate_store: $(impl_field "$r/store.json" "i['verdict'], i.get('failure')" $drv)"
check "deflate_store: stored blocks pass 48 cases, exit 0" \
	test "$rc $(impl_field "$r/store.json" "i['verdict'], i['cases']" $drv)" = "0 ('passed', 48)"

for mode in len64 big; do
	echo "$mode" >"$p/mode"
	verify_finds_shape "$r" "$mode" $drv
done
# overrun: a tight case, its canary overwritten.
echo overrun >"$p/mode"
verify_finds_shape "$r" overrun $drv \
	'^case [0-9]+ of seed 42: (de)?compress [0-9]+ bytes, .*tight space ([0-9]+), .*: wrote past its output space \(\2 bytes\)$'
echo ok >"$p/mode"

# crosstalk: 12 cases alone pass, the default 48's last 12, in rounds of
# four transforms with 2 ms requests, find it.
verify_crosstalk $drv

# An engine that never answers: seed 5's case 1, a decompression, its
# second request, is kept until the engine answers, then released.
verify_hangs $drv 2 5 '^case 1 of seed 5: decompress [0-9]+ bytes, '

unload_verifier_clean "$base"
