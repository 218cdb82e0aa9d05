#!/usr/bin/env bash
# C functions that an older version declares with fewer arguments read the
# later ones only after PG_NARGS(): until ALTER EXTENSION UPDATE, the old
# declarations call the current library (test/old_arities_check.py says how).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init --no-cluster
python3 "$repo/test/old_arities_check.py" "$repo"
