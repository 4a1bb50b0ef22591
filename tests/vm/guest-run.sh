# shellcheck shell=bash source-path=SCRIPTDIR
# Runs inside the VM (bash -eu, chrooted into the overlay of the host root):
# puts the host's state out of the way (guest-host-state.sh), sources
# lib.sh, then the scenario given as $1.
# shellcheck source=guest-host-state.sh
. "$CP_SRC/tests/vm/guest-host-state.sh"
# shellcheck source=lib.sh
. "$CP_SRC/tests/vm/lib.sh"
cd "$CP_SRC" || exit 1
CP_SCENARIO_DIR=$(dirname "$1")
export CP_SCENARIO_DIR
# shellcheck disable=SC1090
. "$1"
