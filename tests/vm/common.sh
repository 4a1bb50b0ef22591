# shellcheck shell=bash disable=SC2034
# Shared helpers for the tests/vm host-side scripts (sourced, not run).

CP_VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CP_REPO_ROOT=$(cd "$CP_VM_DIR/../.." && pwd)
CP_VM_CACHE=${CRYPTOPRIO_VM_CACHE:-/var/tmp/cryptoprio-vm}
CP_VM_KERNELS_ALL=(6.1 6.12 7.2)
# Which sid kernel series "7.2" means (newest linux-image-<series>.*-amd64).
CP_VM_SID_SERIES=${CRYPTOPRIO_VM_SID_SERIES:-7.2}
# The Debian mirror for sid: the one the host's apt takes Debian 12 from
# (the repository of its "bookworm" suite, as apt-get indextargets lists
# it), so no address is written here.
# host_repo SUITE: the repository of SUITE in the host's apt sources.
host_repo() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk -v s="$1" '$2 == s { sub(/\/$/, "", $1); print $1; exit }'
}
CP_VM_MIRROR=${CRYPTOPRIO_VM_MIRROR:-$(host_repo bookworm)}
CP_VM_SECURITY_MIRROR=${CRYPTOPRIO_VM_SECURITY_MIRROR:-$(host_repo bookworm-security)}
CP_VM_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

msg() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { msg "error: $*"; exit 1; }
# apt_update [CMD...] [-- APT-OPTION...]: CMD (default none: the host's
# apt-get; "chroot DIR" for a chroot's) apt-get update, tried again when
# it fails, three times at most, 30 s apart: a mirror in the middle of a
# sync serves index files of the wrong size for a while, and the first
# update of a list has no older one to fall back on.
apt_update() {
	local cmd=() try
	while [[ $# -gt 0 && $1 != -- ]]; do cmd+=("$1"); shift; done
	[[ ${1:-} == -- ]] && shift
	for try in 1 2 3; do
		"${cmd[@]}" apt-get -qq "$@" update && return 0
		[[ $try -eq 3 ]] || { msg "apt-get update failed (a mirror syncing?): again in 30 s"; sleep 30; }
	done
	return 1
}

# shellcheck source-path=SCRIPTDIR source=guest-env.sh
. "$CP_VM_DIR/guest-env.sh"

# guest_env_write: the env file of a test VM (.vm/config, sourced by
# initramfs-init): each variable that tests/vm/guest-env has the host set,
# NAME=VALUE with the value of the caller's shell variable NAME, %q-quoted
# (busybox sh reads it). A variable without a value stops the runner: in the
# guest it would only be an empty string that some scenario trips over.
guest_env_write() {
	local names name
	names=$(guest_env_names "$CP_VM_DIR/guest-env" env-file) || die "bad tests/vm/guest-env"
	for name in $names; do
		[[ -v $name ]] || die "tests/vm/guest-env lists $name, but the runner sets no value for it"
		printf '%s=%q\n' "$name" "${!name}"
	done
}

valid_kalias() {
	case $1 in 6.1|6.12|7.2) return 0 ;; *) return 1 ;; esac
}

# The guest's architecture: x86_64 (the default; the host's own), arm64 or
# armhf (emulated: Debian's kernels of that architecture and a root of its
# own). The scripts set it from their -a option.
CP_VM_ARCH=${CP_VM_ARCH:-x86_64}
CP_VM_ARCHES_ALL=(x86_64 arm64 armhf)
valid_arch() {
	case $1 in x86_64|arm64|armhf) return 0 ;; *) return 1 ;; esac
}
# Debian's name of the architecture.
deb_arch() {
	case $CP_VM_ARCH in x86_64) echo amd64 ;; *) echo "$CP_VM_ARCH" ;; esac
}

# Debian's kernel flavour of the architecture, the suffix of its kernel
# releases: armhf's guests run the LPAE build of the multiplatform kernel
# (QEMU's virt machine puts its PCI windows above 4 GiB).
kflavour() {
	case $CP_VM_ARCH in armhf) echo armmp-lpae ;; *) deb_arch ;; esac
}

# QEMU's name of the architecture (qemu-system-NAME, qemu-NAME of qemu-user).
qemu_arch() {
	case $CP_VM_ARCH in arm64) echo aarch64 ;; armhf) echo arm ;; *) echo "$CP_VM_ARCH" ;; esac
}

# The GNU triplet of the architecture: its cross compiler's prefix and its
# libraries' directory.
gnu_triplet() {
	case $CP_VM_ARCH in
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	*) echo "$CP_VM_ARCH-linux-gnu" ;;
	esac
}

# Kbuild's ARCH of the architecture.
kbuild_arch() {
	case $CP_VM_ARCH in x86_64) echo x86 ;; armhf) echo arm ;; *) echo "$CP_VM_ARCH" ;; esac
}

# Directory of one kernel in the cache: x86_64's at the top, another arch's
# under ARCH/ (arm64/, armhf/), beside that arch's guest root and project
# build.
kdir_of() {
	if [[ $CP_VM_ARCH == x86_64 ]]; then
		printf '%s/%s\n' "$CP_VM_CACHE" "$1"
	else
		printf '%s/%s/%s\n' "$CP_VM_CACHE" "$CP_VM_ARCH" "$1"
	fi
}

# Kernel release (uname -r) of a fetched kernel.
kver_of() {
	local f
	f="$(kdir_of "$1")/kver"
	[[ -s $f ]] || die "kernel $1 not fetched (run tests/vm/fetch-kernels $1)"
	cat "$f"
}

# Private apt options for sid.
sid_apt_opts() {
	local d="$CP_VM_CACHE/sid-apt"
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$d/sources.list" \
		-o "Dir::Etc::SourceParts=/dev/null" \
		-o "Dir::Etc::Preferences=/dev/null" \
		-o "Dir::Etc::PreferencesParts=/dev/null" \
		-o "Dir::State::Lists=$d/lists" \
		-o "Dir::Cache=$d/cache" \
		-o "APT::Sandbox::User=root"
}

# Private apt options for another architecture's packages (Debian 12, its
# security suite and sid, written by fetch-kernels), so that neither the
# host's dpkg architectures nor its lists change.
arch_apt_opts() {
	local d="$CP_VM_CACHE/$CP_VM_ARCH/apt"
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$d/sources.list" \
		-o "Dir::Etc::SourceParts=$d/sources.list.d" \
		-o "Dir::Etc::Preferences=/dev/null" \
		-o "Dir::Etc::PreferencesParts=/dev/null" \
		-o "Dir::State::Lists=$d/lists" \
		-o "Dir::State::Status=$d/status" \
		-o "Dir::Cache=$d/cache" \
		-o "APT::Architecture=$(deb_arch)" \
		-o "APT::Architectures=$(deb_arch)" \
		-o "APT::Sandbox::User=root"
}
