# unpack.sh (sourced by the host-setup of initramfs-luks-root and of
# initramfs-dracut-luks-root, on the host): unpack, the packages a scenario
# runs with but the host must not have installed, into the VM cache.
# unpack DIR APT-OPTION...: the packages of pkgs, as apt with the options
# finds them, unpacked into DIR/root and merged into usr/ as the roots are
# (their /bin, /lib and /sbin are links to usr/).
unpack() {
	local dir=$1 want deb d
	shift
	want=$(apt-cache "$@" policy "${pkgs[@]}" | awk '/^[^ ]/ { p = $1 } $1 == "Candidate:" { print p, $2 }
		END { print "merged into usr/" }')
	if [[ -f $dir/stamp && $(<"$dir/stamp") == "$want" && -d $dir/root ]]; then
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir/debs"
	# (apt warns that it downloads as root, not as _apt: the cache is root's.)
	(cd "$dir/debs" && apt-get "$@" download -q "${pkgs[@]}" >/dev/null 2> >(grep -v unsandboxed >&2))
	mkdir "$dir/root"
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	for d in bin lib sbin; do
		if [[ -d $dir/root/$d ]]; then
			mkdir -p "$dir/root/usr/$d"
			cp -a "$dir/root/$d/." "$dir/root/usr/$d/"
			rm -rf "${dir:?}/root/$d"
		fi
	done
	printf '%s\n' "$want" >"$dir/stamp"
}
