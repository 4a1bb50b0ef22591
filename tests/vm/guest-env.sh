# shellcheck shell=dash
# Readers of tests/vm/guest-env, the list of the guest's environment
# (sourced, not run). Sourced by the host's common.sh (bash) and, inside the
# VM, by initramfs-init (busybox sh: no arrays, nothing outside the
# initramfs but what the host root has) and guest-systemd-setup.sh (bash):
# so POSIX sh plus "local", which both shells have, and only builtins.

# guest_env_names MANIFEST READER: the variables of MANIFEST that READER
# takes, one a line; READER is
#   env-file  the runner writing .vm/config (scopes scenario, init, systemd)
#   plain     the scenario's environment on the plain boot path (scenario,
#             guest)
#   systemd   the environment of guest-systemd-setup.sh and
#             cp-vm-test.service (scenario, systemd, guest)
# A malformed line fails (non-zero, a message on stderr) rather than being
# skipped: a variable silently missing in the guest is hard to find.
guest_env_names() {
	local file=$1 reader=$2 name scope what
	case $reader in
	env-file | plain | systemd) ;;
	*) echo "guest-env: unknown reader '$reader'" >&2; return 1 ;;
	esac
	[ -f "$file" ] || { echo "guest-env: no $file" >&2; return 1; }
	while read -r name scope what || [ -n "$name" ]; do
		case $name in '' | \#*) continue ;; esac
		case $name in
		[!A-Za-z_]* | *[!A-Za-z0-9_]*)
			echo "$file: bad variable name '$name'" >&2; return 1 ;;
		esac
		[ -n "$what" ] || { echo "$file: $name: say what it holds" >&2; return 1; }
		case $scope in
		scenario) ;;
		init) [ "$reader" = env-file ] || continue ;;
		systemd) [ "$reader" != plain ] || continue ;;
		guest) [ "$reader" != env-file ] || continue ;;
		*) echo "$file: $name: unknown scope '$scope'" >&2; return 1 ;;
		esac
		echo "$name"
	done <"$file"
}

# _guest_env_replace STRING OLD NEW: STRING with every OLD replaced by NEW,
# into _ge_r (not printed: a command substitution would drop a trailing
# newline of the value).
_guest_env_replace() {
	local s=$1
	_ge_r=
	while :; do
		case $s in
		*"$2"*) _ge_r=$_ge_r${s%%"$2"*}$3; s=${s#*"$2"} ;;
		*) break ;;
		esac
	done
	_ge_r=$_ge_r$s
}

# guest_env_args MANIFEST READER: the variables of MANIFEST for READER as
# 'NAME=VALUE' words, single-quoted for eval, from the shell variables of
# those names (an unset one is empty). busybox sh has no arrays: the caller
# makes them its positional parameters and passes "$@" to env -i:
#   args=$(guest_env_args MANIFEST plain) || die ...; eval "set -- $args"
guest_env_args() {
	local names name v
	names=$(guest_env_names "$1" "$2") || return 1
	for name in $names; do
		eval "v=\${$name-}"
		_guest_env_replace "$v" "'" "'\\''"
		printf "'%s=%s' " "$name" "$_ge_r"
	done
}

# guest_env_unit MANIFEST: the variables of MANIFEST for the systemd boot
# path as Environment= lines of a unit, from the shell variables of those
# names. Each assignment is double-quoted, so a value may hold spaces;
# systemd unescapes C-style (\\, \", \n) and expands specifiers (%%) in it.
guest_env_unit() {
	local names name v nl='
'
	names=$(guest_env_names "$1" systemd) || return 1
	for name in $names; do
		eval "v=\${$name-}"
		_guest_env_replace "$v" "\\" "\\\\"
		_guest_env_replace "$_ge_r" '"' '\"'
		_guest_env_replace "$_ge_r" % %%
		_guest_env_replace "$_ge_r" "$nl" '\n'
		printf 'Environment="%s=%s"\n' "$name" "$_ge_r"
	done
}
