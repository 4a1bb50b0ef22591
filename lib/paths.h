/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Files cryptoprio keeps at run time (cryptoprioctl(8), FILES). */
#pragma once

#include "config.h"

#define CP_RUNTIME_DIR RUNSTATEDIR "/cryptoprio"
#define CP_STATE_PATH  CP_RUNTIME_DIR "/state.json"
#define CP_LOCK_PATH   CP_RUNTIME_DIR "/lock"
#define CP_CACHE_PATH  LOCALSTATEDIR "/lib/cryptoprio/calibration.json"
